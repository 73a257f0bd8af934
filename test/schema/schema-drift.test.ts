// schema.graphql and the generated typed documents (src/gql) are committed: both must be what
// the code produces now. Fix with `npm run schema:print && npm run codegen`.
import { readFileSync } from 'node:fs';
import { generate } from '@graphql-codegen/cli';
import { describe, expect, it } from 'vitest';
import config from '../../codegen.js';
import { printedSchema } from '../../src/schema/index.js';

describe('committed GraphQL artifacts', () => {
  it('schema.graphql equals the schema printed from the code', () => {
    expect(readFileSync('schema.graphql', 'utf8')).toBe(printedSchema());
  });

  it('src/gql equals what codegen generates from schema.graphql and the documents', async () => {
    const outputs = await generate({ ...config, silent: true }, false);
    expect(outputs.length).toBeGreaterThan(0);
    for (const out of outputs) {
      expect(readFileSync(out.filename, 'utf8'), `${out.filename} is stale: run npm run codegen`).toBe(out.content);
    }
  });
});
