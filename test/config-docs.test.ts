// docs/configuration.md and .env.example are generated from the settings declared in
// src/config.ts and committed: both must be what the declarations render now.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configurationPage, envExample, REGENERATE } from '../scripts/config-docs.js';

describe('committed configuration reference', () => {
  it('docs/configuration.md equals the page rendered from src/config.ts', () => {
    expect(readFileSync('docs/configuration.md', 'utf8'), `docs/configuration.md is stale: run ${REGENERATE}`).toBe(configurationPage());
  });

  it('.env.example equals the file rendered from src/config.ts', () => {
    expect(readFileSync('.env.example', 'utf8'), `.env.example is stale: run ${REGENERATE}`).toBe(envExample());
  });
});
