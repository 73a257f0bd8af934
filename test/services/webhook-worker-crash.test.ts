// kill -9 of an instance while it is delivering webhooks: two built servers (as `npm run
// cluster` starts them) share one PostgreSQL database and both send; receivers in this process
// answer slowly and verify every request with standardwebhooks. The instance holding the most
// leases is killed with SIGKILL while requests of its are in flight; the other instance takes
// over once the leases run out. Every event reaches every endpoint whose filter selects it (at
// least once), and no endpoint receives an event its filter does not select.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../scripts/cluster/start-cluster.js';
import { normalizeAddress } from '../../src/domain/address.js';
import { TEST_DATABASE_URL, createPostgresDatabase } from '../helpers/test-database.js';

const skipReason = TEST_DATABASE_URL ? null : 'set TEST_DATABASE_URL (a PostgreSQL server): the instances share one database';
const KEY = 'webhook-crash-test-key';
const COLLECTIONS = [1, 2, 3].map((i) => normalizeAddress('0x' + String(i).repeat(40))!);
const EVENTS_PER_COLLECTION = 40;

interface Receiver {
  collection: string | null;
  secret: string;
  url: string;
  server: Server;
  got: Map<string, number>;
  collectionsSeen: Set<string>;
  inFlight: number;
  unverified: number;
}

async function startReceiver(collection: string | null): Promise<Receiver> {
  const r = { collection, secret: '', got: new Map(), collectionsSeen: new Set(), inFlight: 0, unverified: 0 } as unknown as Receiver;
  r.server = createServer(async (req, res) => {
    r.inFlight++;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    // slow enough that a kill finds requests in flight
    await new Promise((ok) => setTimeout(ok, 25));
    r.inFlight--;
    try {
      const payload = new Webhook(r.secret).verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>) as { data: { eventId: string; collectionAddress: string } };
      r.got.set(payload.data.eventId, (r.got.get(payload.data.eventId) ?? 0) + 1);
      r.collectionsSeen.add(payload.data.collectionAddress);
      res.writeHead(204).end();
    } catch {
      r.unverified++;
      res.writeHead(400).end();
    }
  });
  await new Promise<void>((ok) => r.server.listen(0, '127.0.0.1', ok));
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/hook`;
  return r;
}

describe.skipIf(skipReason)(`webhooks across a kill -9 of the sending instance${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let cluster: Cluster;
  let client: pg.Client;
  let drop = async () => {};
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    const created = await createPostgresDatabase();
    drop = created.drop;
    cluster = await startCluster({
      instances: 2,
      logDir: mkdtempSync(path.join(tmpdir(), 'webhook-crash-')),
      env: {
        DATABASE_URL: created.url,
        DATABASE_POOL_SIZE: '4',
        REDIS_URL: undefined,
        API_KEYS: KEY,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_POLL_MS: '100',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_RETRY_FIRST_MS: '100',
        WEBHOOK_RETRY_MAX_MS: '500',
        SEED: '0',
        SIGNATURE_WORKERS: '0',
        RATE_LIMIT_PER_MINUTE: '0',
        LOG_LEVEL: 'info',
      },
    });
    client = new pg.Client({ connectionString: created.url });
    await client.connect();
    await client.query(`INSERT INTO collections (address, owner, type) SELECT a, a, 'ERC721' FROM unnest($1::text[]) a`, [COLLECTIONS]);
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    await client?.end().catch(() => {});
    for (const r of receivers) await new Promise((ok) => r.server.close(() => ok(null)));
    await drop();
  });

  it('every event reaches every endpoint that subscribed to it, at least once, and no other', async () => {
    // two endpoints per collection and two on everything, registered through the first instance
    for (const collection of [...COLLECTIONS, ...COLLECTIONS, null, null]) {
      const r = await startReceiver(collection);
      const res = await fetch(`${cluster.instances[0]!.url}/api/v1/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-looks-api-key': KEY },
        body: JSON.stringify({ url: r.url, filter: collection ? { collection } : {} }),
      });
      const body = (await res.json()) as { data: { secret: string } };
      expect(res.status, JSON.stringify(body)).toBe(201);
      r.secret = body.data.secret;
      receivers.push(r);
    }

    // events keep arriving, one transaction per collection every few milliseconds
    const ids = new Map<string, string[]>(COLLECTIONS.map((c) => [c, []]));
    const write = async (n: number) => {
      for (let i = 0; i < n; i++) {
        for (const c of COLLECTIONS) {
          const { rows } = await client.query<{ id: string }>(`INSERT INTO market_events (type, collection_address, token_id, price) VALUES ('LIST', $1, $2, 1000) RETURNING id::text`, [c, i]);
          ids.get(c)!.push(rows[0]!.id);
        }
        await new Promise((ok) => setTimeout(ok, 5));
      }
    };
    await write(EVENTS_PER_COLLECTION / 2);

    // the instance holding the most leases, killed while requests of its are in flight
    const owners = async () =>
      (await client.query<{ owner: string; n: string }>(`SELECT split_part(lease_owner, '-', 1) AS owner, count(*)::text AS n FROM webhook_endpoints WHERE lease_expires_at > now() GROUP BY 1`)).rows;
    let victim: (typeof cluster.instances)[number] | undefined;
    const deadline = Date.now() + 30_000;
    while (!victim && Date.now() < deadline) {
      const leases = await owners();
      const top = leases.sort((a, b) => Number(b.n) - Number(a.n))[0];
      if (top && receivers.some((r) => r.inFlight > 0)) victim = cluster.instances.find((i) => String(i.pid) === top.owner);
      else await new Promise((ok) => setTimeout(ok, 5));
    }
    expect(victim, 'an instance holding leases while deliveries were in flight').toBeDefined();
    const inFlightAtKill = receivers.reduce((n, r) => n + r.inFlight, 0);
    await victim!.kill('SIGKILL');
    expect(inFlightAtKill).toBeGreaterThan(0);
    const survivor = cluster.instances.find((i) => i !== victim)!;
    expect(survivor.exited).toBe(false);

    // more events after the crash; the survivor delivers them and, once the leases run out, the victim's
    await write(EVENTS_PER_COLLECTION / 2);
    const due = (r: Receiver) => (r.collection ? ids.get(r.collection)! : [...ids.values()].flat());
    const complete = () => receivers.every((r) => due(r).every((id) => r.got.has(id)));
    const until = Date.now() + 90_000;
    while (!complete() && Date.now() < until) await new Promise((ok) => setTimeout(ok, 200));

    for (const r of receivers) {
      const missing = due(r).filter((id) => !r.got.has(id));
      expect(missing, `endpoint on ${r.collection ?? 'everything'}`).toEqual([]);
      // nothing outside its filter
      const wanted = new Set(due(r));
      expect([...r.got.keys()].filter((id) => !wanted.has(id))).toEqual([]);
      if (r.collection) expect([...r.collectionsSeen]).toEqual([r.collection]);
      expect(r.unverified).toBe(0);
    }
  }, 180_000);
});
