// Booting on the embedded default: the first start on an empty data folder creates, migrates
// and seeds a living demo marketplace, which has its own API key on every start (never with keys
// configured, never on a database it did not seed); a restart reuses it without re-seeding; SEED=0
// opts out; configuration errors name the variable.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { boot, type Running } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { DEMO_API_KEY, withDemoApiKey } from '../src/demo/demo-api-key.js';
import { createLogger } from '../src/logger.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'mkt-boot-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The status of the webhook list asked with this key: 200 for a known key, 401 for another, 403 without keys. */
const webhooksWith = async (running: Running, key: string) => (await running.yoga.fetch('http://t/api/v1/webhooks', { headers: { 'x-looks-api-key': key } })).status;

/** A logger that keeps its lines. */
function capturedLogger() {
  const lines: string[] = [];
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) };
}

describe('boot on embedded PGlite', () => {
  it('seeds a new data folder once, and reopens it without seeding again', async () => {
    const dir = tempDir();
    const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
    // No template here: this is the slow path a build without `npm run build` takes.
    const first = await boot(config, createLogger('silent'), { demoTemplateDir: null });
    const counts = { collections: await first.db.prisma.collection.count(), orders: await first.db.prisma.order.count(), sales: await first.db.prisma.sale.count() };
    expect(counts.collections).toBeGreaterThanOrEqual(5);
    expect(counts.orders).toBeGreaterThanOrEqual(300);
    expect(counts.sales).toBeGreaterThanOrEqual(1000);
    const types = await first.db.prisma.collection.groupBy({ by: ['type'], _count: true });
    expect(types.map((t) => t.type).sort()).toEqual(['ERC1155', 'ERC721']);
    const statuses = await first.db.prisma.order.groupBy({ by: ['status'], _count: true });
    expect(statuses.length).toBeGreaterThanOrEqual(6);
    // every stats window has data
    const res = await first.yoga.fetch(`http://t/api/v1/collections/stats?address=${(await first.db.prisma.collection.findFirstOrThrow({ orderBy: { createdAt: 'asc' } })).address}`);
    const stats = ((await res.json()) as any).data;
    for (const p of ['24h', '7d', '1m', '3m', '6m', '1y']) expect(BigInt(stats[`count${p}`])).toBeGreaterThan(0n);
    // the demo's own API key, which the webhook examples send
    expect(await webhooksWith(first, DEMO_API_KEY)).toBe(200);
    await first.close();

    // a restart: the same demo, the same key, said at start
    const { lines, logger } = capturedLogger();
    const second = await boot(config, logger);
    expect(await second.db.prisma.order.count()).toBe(counts.orders);
    expect(await second.db.prisma.collection.count()).toBe(counts.collections);
    expect(await webhooksWith(second, DEMO_API_KEY)).toBe(200);
    expect(lines.some((l) => l.includes(`API key`) && l.includes(DEMO_API_KEY))).toBe(true);
    await second.close();

    // keys of the deployment's own replace it
    const keyed = await boot(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', API_KEYS: 'partner-key-1' }), createLogger('silent'));
    expect(await webhooksWith(keyed, DEMO_API_KEY)).toBe(401);
    expect(await webhooksWith(keyed, 'partner-key-1')).toBe(200);
    await keyed.close();
  }, 180_000); // the whole demo seed without a template: tens of seconds on a loaded machine

  it('leaves a new embedded database empty with SEED=0, without the demo key', async () => {
    const running = await boot(loadConfig({ DATA_DIR: 'memory', SEED: '0', LOG_LEVEL: 'silent' }), createLogger('silent'));
    expect(await running.db.prisma.collection.count()).toBe(0);
    expect(await webhooksWith(running, DEMO_API_KEY)).toBe(403);
    await running.close();
    // on disk too, restarted with SEED=1: that folder was not seeded as the demo
    const dir = tempDir();
    await (await boot(loadConfig({ DATA_DIR: dir, SEED: '0', LOG_LEVEL: 'silent' }), createLogger('silent'))).close();
    const again = await boot(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }), createLogger('silent'));
    expect(await again.db.prisma.collection.count()).toBe(0);
    expect(await webhooksWith(again, DEMO_API_KEY)).toBe(403);
    await again.close();
  });

  it('gives the demo key only to the demo, never with a database of its own or keys configured', () => {
    const demo = withDemoApiKey(loadConfig({}), true);
    expect([...demo.apiKeyLimits]).toEqual([[DEMO_API_KEY, 600]]);
    expect(withDemoApiKey(loadConfig({}), false).apiKeyLimits.size).toBe(0);
    expect(withDemoApiKey(loadConfig({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/x' }), true).apiKeyLimits.size).toBe(0);
    expect([...withDemoApiKey(loadConfig({ API_KEYS: 'partner-key-1' }), true).apiKeyLimits.keys()]).toEqual(['partner-key-1']);
    expect([...withDemoApiKey(loadConfig({ WRITE_API_KEYS: 'write-key-1' }), true).apiKeyLimits.keys()]).toEqual(['write-key-1']);
  });

  it('refuses bad configuration naming every bad variable', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', ADMIN_API_KEY: 'short', LISTING_REWARD_POINTS: '1,2', WETH_ADDRESS: '0x12' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      for (const name of ['PORT', 'DATABASE_URL', 'ADMIN_API_KEY', 'LISTING_REWARD_POINTS', 'WETH_ADDRESS']) expect((err as Error).message).toContain(name);
    }
  });

  it('applies network overrides from env to the address book', () => {
    const c = loadConfig({
      CHAIN_ID: '31337',
      EXCHANGE_ADDRESS: '0x' + 'aa'.repeat(20),
      WETH_ADDRESS: '0x' + 'dd'.repeat(20),
      STRATEGY_STANDARD_SALE_ADDRESSES: `0x${'bb'.repeat(20)}, 0x${'cc'.repeat(20)}`,
      STRATEGY_COLLECTION_OFFER_ADDRESSES: '0x' + 'ee'.repeat(20),
    });
    expect(c.network.chainId).toBe(31337);
    expect(c.network.exchange.toLowerCase()).toBe('0x' + 'aa'.repeat(20));
    expect(c.network.strategies.standardSale).toHaveLength(2);
    expect(loadConfig({}).network.weth).toBe('0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2');
  });

  it('refuses a chain without its contract addresses, naming each missing variable', () => {
    expect(() => loadConfig({ CHAIN_ID: '31337', EXCHANGE_ADDRESS: '0x' + 'aa'.repeat(20) })).toThrow(
      /WETH_ADDRESS: chain 31337[^\n]*\n  STRATEGY_STANDARD_SALE_ADDRESSES[^\n]*\n  STRATEGY_COLLECTION_OFFER_ADDRESSES/,
    );
    expect(() => loadConfig({ DATABASE_WAIT_SECONDS: 'soon' })).toThrow(/DATABASE_WAIT_SECONDS/);
    expect(loadConfig({ DATABASE_WAIT_SECONDS: 'forever' }).databaseWaitSeconds).toBe(Infinity);
  });
});
