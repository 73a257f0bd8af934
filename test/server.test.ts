// The server process as an operator runs it: SIGTERM drains (an order POST in flight still gets
// its 201, subscriptions end politely, new connections are refused, exit 0 in under 10 s); a
// taken port, a bad configuration and `--help` each print what to do and nothing else.
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { boot } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { createLogger } from '../src/logger.js';
import { signWithEthers6 } from './helpers/maker-orders.js';
import { spawnServerProcess } from './helpers/server-process.js';
import { openSse } from './helpers/sse-stream.js';

const run = promisify(execFile);
const root = mkdtempSync(path.join(tmpdir(), 'mkt-server-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

const TSX = ['--import', 'tsx'];
const baseEnv = (over: Record<string, string>) => ({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'info', SIGNATURE_WORKERS: '0', ...over });

function startServer(env: Record<string, string>) {
  const server = spawnServerProcess([...TSX, 'src/server.ts'], baseEnv(env));
  children.push(server.child);
  return server;
}

describe('the server process', () => {
  it('drains on SIGTERM: the in-flight order POST gets its 201, subscriptions end, exit 0 within 10 s', async () => {
    const dataDir = path.join(root, 'drain');
    const collection = '0x' + '77'.repeat(20);
    const setup = await boot(loadConfig({ DATA_DIR: dataDir, SEED: '0', LOG_LEVEL: 'silent' }), createLogger('silent'), { indexer: false });
    await setup.services.collections.upsertCollection({ address: collection, type: 'ERC721', name: 'Drain' });
    const net = setup.services.deps.network;
    await setup.close();

    const server = startServer({ DATA_DIR: dataDir, SEED: '0', PORT: '0', HOST: '127.0.0.1', SHUTDOWN_TIMEOUT_MS: '6000' });
    const port = await server.ready;
    const base = `http://127.0.0.1:${port}`;

    // A live subscription over SSE.
    const sse = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { orderEvents { kind hash } }' }),
    });
    expect(sse.status).toBe(200);
    const sseText = sse.text();

    // An order POST whose body is half sent when SIGTERM arrives.
    const now = Math.floor(Date.now() / 1000);
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const order = await signWithEthers6(wallet, net.chainId, net.exchange, {
      isOrderAsk: true, signer: wallet.address, collection, price: '1000000000000000000', tokenId: '1', amount: '1',
      strategy: net.strategies.standardSale[0]!, currency: net.weth, nonce: '0', startTime: now - 60, endTime: now + 86_400,
      minPercentageToAsk: 9800, params: [],
    });
    const body = Buffer.from(JSON.stringify(order));
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${base}/api/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
      req.write(body.subarray(0, 100));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        void (async () => {
          while (!server.output().includes('shutting down')) await new Promise((r) => setTimeout(r, 20));
          await new Promise((r) => setTimeout(r, 300));
          // Draining: no new connections are accepted any more (a fresh one, not a pooled keep-alive).
          refused = await new Promise<boolean>((r) => {
            const probe = request(`${base}/healthz`, { agent: false }, () => r(false));
            probe.on('error', () => r(true));
            probe.end();
          });
          req.end(body.subarray(100));
        })();
      }, 300);
    });
    let refused = false;
    const t0 = Date.now();
    const res = await answer;
    expect(res.status, res.body).toBe(201);
    expect(refused).toBe(true);
    const hash = JSON.parse(res.body).data.hash as string;
    // The subscription stream was ended by the server, not cut.
    expect(await sseText).toContain('event: complete');
    expect(await server.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    // Drained, not cut off by SHUTDOWN_TIMEOUT_MS.
    const stopped = server.output().split('\n').find((l) => l.includes('"msg":"stopped"'));
    expect(stopped).toBeDefined();
    expect(JSON.parse(stopped!).ms).toBeLessThan(6000);
    expect(server.output()).not.toContain('still running');
    const db = await openDatabase({ dataDir });
    try {
      expect(await db.prisma.order.count({ where: { hash } })).toBe(1);
    } finally {
      await db.close();
    }
  });

  it('ends open event streams at once on SIGTERM and stops in well under a second; the client resumes elsewhere with its last id', async () => {
    const dataDir = path.join(root, 'drain-streams');
    const config = loadConfig({ DATA_DIR: dataDir, SEED: '0', LOG_LEVEL: 'silent' });
    const addEvents = async (n: number) => {
      const app = await boot(config, createLogger('silent'), { indexer: false });
      try {
        const rows = await app.db.sql.query<{ id: string }>(
          `INSERT INTO market_events (type, collection_address, token_id) SELECT 'MINT', '0x${'77'.repeat(20)}', g FROM generate_series(1, $1::int) g RETURNING id::text`,
          [n],
        );
        return rows.map((r) => r.id).sort((a, b) => Number(a) - Number(b));
      } finally {
        await app.close();
      }
    };
    const written = await addEvents(3);
    const server = startServer({ DATA_DIR: dataDir, SEED: '0', PORT: '0', HOST: '127.0.0.1', SHUTDOWN_TIMEOUT_MS: '6000' });
    const base = `http://127.0.0.1:${await server.ready}`;
    const query = 'subscription($after: ID) { marketEvents(after: $after) { eventId } }';
    const stream = await openSse(base, query, { after: '0' });
    const seen: string[] = [];
    for (let i = 0; i < 2; i++) seen.push((await stream.next()).id!);
    server.child.kill('SIGTERM');
    await stream.ended(1000); // event: complete, written by the draining server
    expect(await server.exited).toBe(0);
    const stopped = server.output().split('\n').find((l) => l.includes('"msg":"stopped"'));
    expect(JSON.parse(stopped!).ms).toBeLessThan(1000);
    written.push(...(await addEvents(1)));
    // another instance (here the next one on the same data) takes the client's last id
    const next = await boot(config, createLogger('silent'), { indexer: false });
    try {
      const resumed = await openSse(next.yoga, query, {}, { 'last-event-id': seen.at(-1)! });
      for (let i = 0; i < 2; i++) seen.push((await resumed.next()).id!);
      resumed.close();
    } finally {
      await next.close();
    }
    expect(seen).toEqual(written);
  });

  it('says in one line what to do when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const server = startServer({ DATA_DIR: 'memory', SEED: '0', PORT: String(port), HOST: '127.0.0.1' });
      server.ready.catch(() => {});
      expect(await server.exited).toBe(1);
      const fatal = server.output().split('\n').filter((l) => l.includes('"level":60'));
      expect(fatal).toHaveLength(1);
      expect(fatal[0]).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(server.output()).not.toMatch(/\n\s+at /);
    } finally {
      blocker.close();
    }
  });

  it('exits with one line after the bounded wait when PostgreSQL is unreachable at boot', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const server = startServer({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/none`, DATABASE_WAIT_SECONDS: '1', PORT: '0' });
    server.ready.catch(() => {});
    expect(await server.exited).toBe(1);
    const fatal = server.output().split('\n').filter((l) => l.includes('"level":60'));
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toContain(`PostgreSQL 127.0.0.1:${port}/none is unreachable`);
    expect(fatal[0]).toContain('DATABASE_WAIT_SECONDS=forever');
    expect(server.output()).toContain('waiting for PostgreSQL');
    expect(server.output()).not.toMatch(/\n\s+at /);
  });

  it('refuses a chain without its contract addresses with one line per missing variable', async () => {
    const r = await run(process.execPath, [...TSX, 'src/server.ts'], { env: baseEnv({ CHAIN_ID: '424242', DATA_DIR: 'memory' }) }).catch((e) => e);
    expect(r.code).toBe(2);
    for (const v of ['EXCHANGE_ADDRESS', 'WETH_ADDRESS', 'STRATEGY_STANDARD_SALE_ADDRESSES', 'STRATEGY_COLLECTION_OFFER_ADDRESSES']) {
      expect(r.stderr).toMatch(new RegExp(`^  ${v}: chain 424242`, 'm'));
    }
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('prints usage for --help and does nothing else, for the server and every command', async () => {
    const dataDir = path.join(root, 'help');
    const commands = ['src/server.ts', 'src/cli/migrate.ts', 'src/cli/seed.ts', 'src/cli/indexer.ts', 'src/cli/import-collections.ts', 'src/cli/import-market-data.ts', 'src/cli/backfill-collection.ts'];
    const results = await Promise.all(commands.map((c) => run(process.execPath, [...TSX, c, '--help'], { env: baseEnv({ DATA_DIR: dataDir, PORT: '1' }) })));
    for (const [i, r] of results.entries()) {
      expect(r.stdout, commands[i]).toMatch(/^usage: /);
      expect(r.stderr, commands[i]).toBe('');
    }
    expect(existsSync(dataDir)).toBe(false);
    const bad = await run(process.execPath, [...TSX, 'src/cli/migrate.ts', '--frobnicate'], { env: baseEnv({ DATA_DIR: dataDir }) }).catch((e) => e);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('usage: npm run migrate');
    const noAddress = await run(process.execPath, [...TSX, 'src/cli/backfill-collection.ts'], { env: baseEnv({ DATA_DIR: dataDir }) }).catch((e) => e);
    expect(noAddress.code).toBe(2);
    expect(noAddress.stderr).toContain('a collection address is required');
    expect(noAddress.stderr).toContain('usage: npm run backfill');
    expect(existsSync(dataDir)).toBe(false);
  });
});
