// docs/configuration.md and .env.example, rendered from the settings declared in src/config.ts.
// scripts/print-config-docs.ts writes them; test/config-docs.test.ts fails when the committed
// files differ from what this renders.
import { describeSettings, type SettingDoc } from '../src/config.js';

export const REGENERATE = 'npm run config:docs';

const cell = (s: string) => s.replaceAll('|', '\\|');

function meaning(s: SettingDoc): string {
  return s.values ? `${s.description}; values: ${s.values.map((v) => `\`${v}\``).join(', ')}` : s.description;
}

export function configurationPage(): string {
  const out = [
    '# Configuration',
    '',
    `<!-- Generated from the declarations in src/config.ts by \`${REGENERATE}\`: edit them, not this page. -->`,
    '',
    'The service reads these environment variables once, at boot, and validates them: a bad value',
    'stops it before it serves anything, with one line per problem naming the variable (exit code 2).',
    'It does not load a `.env` file itself; [`.env.example`](../.env.example) lists every variable',
    'with its default (copy it to `.env`, then `set -a; . ./.env; set +a`).',
    '',
    'Switches take `true`/`false`, `1`/`0`, `yes`/`no` or `on`/`off`. Numbers are whole numbers',
    'within a range (a value outside it is refused and the range named); an empty number reads as',
    'its default.',
  ];
  for (const group of describeSettings()) {
    out.push('', `## ${group.title}`, '');
    if (group.about) out.push(group.about, '');
    out.push('| variable | default | meaning |', '|---|---|---|');
    for (const s of group.settings) {
      out.push(`| \`${s.name}\` | ${s.default === undefined ? 'unset' : `\`${cell(s.default)}\``} | ${cell(meaning(s))} |`);
    }
  }
  return `${out.join('\n')}\n`;
}

export function envExample(): string {
  const out = [
    '# Every variable the service reads, with its default; docs/configuration.md explains them.',
    `# Generated from src/config.ts by \`${REGENERATE}\`: edit the declarations there.`,
    '# Copy to .env and `set -a; . ./.env; set +a` (the service does not load .env itself).',
  ];
  for (const group of describeSettings()) {
    out.push('', `# --- ${group.title}`);
    if (group.about) out.push(...comment(group.about));
    for (const s of group.settings) {
      out.push('', ...comment(meaning(s)));
      out.push(s.default === undefined ? `# ${s.name}=${s.example ?? ''}` : `${s.name}=${s.default}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** `# ` lines of at most 100 columns. */
function comment(text: string, width = 100): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/)) {
    if (line.length > 1 && line.length + 1 + word.length > width) {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}
