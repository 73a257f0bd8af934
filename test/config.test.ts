// What the configuration reference promises holds: each documented default is what an unset
// variable reads as, each example in .env.example is accepted, and the parsing rules and boot
// errors an operator meets.
import { describe, expect, it } from 'vitest';
import { ConfigError, describeSettings, loadConfig } from '../src/config.js';

const settings = describeSettings().flatMap((g) => g.settings);
// variables that only make sense together with another one
const NEEDS: Record<string, Record<string, string>> = { DATABASE_REPLICA_URL: { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/marketplace' } };

const problems = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  return expect.unreachable(`${JSON.stringify(env)} was accepted`);
};

describe('configuration', () => {
  it('describes every setting, each once', () => {
    const names = settings.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(50);
    for (const s of settings) expect(s.description, s.name).not.toBe('');
  });

  it('reads an unset variable as its documented default', () => {
    const defaults = loadConfig({});
    for (const s of settings.filter((s) => s.default !== undefined)) {
      expect(loadConfig({ [s.name]: s.default! }), `${s.name}=${s.default}`).toEqual(defaults);
    }
  });

  it('accepts every example that .env.example shows', () => {
    for (const s of settings.filter((s) => s.example !== undefined)) {
      expect(() => loadConfig({ ...NEEDS[s.name], [s.name]: s.example! }), `${s.name}=${s.example}`).not.toThrow();
    }
  });

  it('accepts only the listed values of a one-of setting', () => {
    for (const s of settings.filter((s) => s.values)) {
      for (const v of s.values!) expect(() => loadConfig({ [s.name]: v }), `${s.name}=${v}`).not.toThrow();
      expect(problems({ [s.name]: 'none-of-them' })).toContain(s.name);
    }
  });

  it('keeps its parsing rules', () => {
    expect(loadConfig({ PORT: '' }).port).toBe(4000);
    expect(loadConfig({ DATABASE_WAIT_SECONDS: 'forever' }).databaseWaitSeconds).toBe(Infinity);
    expect(loadConfig({ DATABASE_WAIT_SECONDS: '' }).databaseWaitSeconds).toBe(10);
    expect(loadConfig({ INDEXER_START_BLOCK: '12' }).indexer.startBlock).toBe(12);
    expect(loadConfig({ INDEXER_BACKFILL_FROM_BLOCK: 'off' }).indexer.backfillFromBlock).toBeNull();
    expect(loadConfig({ SEED: 'no', GRAPHIQL: '0', READ_ENGINE: 'off' })).toMatchObject({ seed: false, graphiql: false, readEngine: false });
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBeNull();
    expect(loadConfig({ WRITE_API_KEYS: 'writer-key-1, ,writer-key-2' }).writeApiKeys).toEqual(['writer-key-1', 'writer-key-2']);
    expect(loadConfig({ LISTING_REWARD_POINTS: '5,4,3,2,1' }).listingRewards.points).toEqual([5, 4, 3, 2, 1]);
    expect(loadConfig({ DATA_DIR: '' }).dataDir).toBe('');
    expect(loadConfig({ DATABASE_URL: ' postgres://db/x ' }).databaseUrl).toBe('postgres://db/x');
  });

  it('refuses bad values with one line per variable naming the rule', () => {
    const message = problems({ PORT: '70000', SEED: '', DATABASE_WAIT_SECONDS: 'soon', INDEXER_START_BLOCK: 'x', LISTING_REWARD_POINTS: '' });
    expect(message.split('\n').slice(1).sort()).toEqual([
      '  DATABASE_WAIT_SECONDS: expected seconds (0..86400) or "forever", got "soon"',
      '  INDEXER_START_BLOCK: expected a block number or "latest", got "x"',
      '  LISTING_REWARD_POINTS: expected five comma-separated whole numbers',
      '  PORT: expected 0..65535, got 70000',
      '  SEED: Invalid option: expected one of "0"|"1"|"true"|"false"|"yes"|"no"|"on"|"off"',
    ]);
    expect(problems({ DATABASE_REPLICA_URL: 'postgres://replica/x' })).toContain('DATABASE_REPLICA_URL: needs DATABASE_URL');
  });
});
