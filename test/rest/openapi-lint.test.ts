// The served OpenAPI document passes Redocly's linter with its recommended rules: no errors, and
// no warnings but the ones kept on purpose (a new warning fails here and must be fixed or
// added below with its reason). Run through the CLI, as an integration team would run it.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const run = promisify(execFile);

/** Warnings kept, by rule and place, with why. */
const KEPT_WARNINGS = {
  // The service is not published under a licence; naming one here would be invented.
  'info-license #/info': true,
  // The admin key guards the GraphQL administration mutations, no REST route; it is declared so
  // the document names every key the service reads, and says where it is used.
  'no-unused-components #/components/securitySchemes/adminKey': true,
};

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: 'error' | 'warn'; message: string; location: { pointer: string }[] }[];
}

let app: TestApp;
let dir: string;
beforeAll(async () => {
  app = await startTestApp();
  dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
});
afterAll(async () => {
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the served OpenAPI document', () => {
  it("lints clean with Redocly's recommended rules", async () => {
    const res = await app.yoga.fetch('http://lint/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const file = join(dir, 'openapi.json');
    writeFileSync(file, await res.text());
    const cli = new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url).pathname;
    // no telemetry or update check: tests do not reach the network
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    const out = await run(process.execPath, [cli, 'lint', file, '--extends=recommended', '--format=json'], { env, maxBuffer: 16 << 20 }).catch((err: { stdout?: string; stderr?: string }) => {
      // a lint error exits 1; the report is on stdout all the same
      if (!err.stdout) throw err;
      return { stdout: err.stdout };
    });
    const report = JSON.parse(out.stdout) as LintReport;
    const found = report.problems.map((p) => ({ key: `${p.ruleId} ${p.location[0]?.pointer}`, severity: p.severity, message: p.message }));
    console.log(`Redocly lint (recommended): ${report.totals.errors} errors, ${report.totals.warnings} warnings (kept: ${found.map((p) => p.key).join('; ') || 'none'})`);
    expect(found.filter((p) => p.severity === 'error')).toEqual([]);
    expect(found.filter((p) => !(p.key in KEPT_WARNINGS))).toEqual([]);
  });
});
