// Signed webhooks over the market event log, end to end on real components: orders submitted
// through the REST API become events, and a local HTTP receiver verifies every request with
// standardwebhooks' Webhook.verify. The sender runs as the server runs it (createWebhookWorker),
// driven pass by pass here so each test sees exactly what one pass did; tiny retry settings stand
// in for the day-long schedule.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCollectionAddress, DEMO_WALLETS, seedDemo } from '../../src/demo/seed-demo.js';
import { createWebhookWorker } from '../../src/services/webhook-worker.js';
import { untilBelowHorizon } from '../helpers/event-log.js';
import { signWithEthers6, standardAsk } from '../helpers/maker-orders.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const KEY = 'webhook-test-key-0001';
const OTHER_KEY = 'webhook-test-key-0002';
const H = { 'x-looks-api-key': KEY };

interface Received {
  id: string;
  eventId: string;
  type: string;
  collectionAddress: string;
}

/** A receiver that verifies every delivery; `failNext` answers 503 that many times first. */
async function startReceiver(secret: () => string) {
  const got: Received[] = [];
  const state = { failNext: 0, inFlight: 0, maxInFlight: 0, delayMs: 0, unverified: 0 };
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
    state.inFlight--;
    if (state.failNext > 0) {
      state.failNext--;
      res.writeHead(503).end();
      return;
    }
    try {
      const payload = new Webhook(secret()).verify(body, req.headers as Record<string, string>) as { data: Received & { eventId: string } };
      got.push({ id: String(req.headers['webhook-id']), eventId: payload.data.eventId, type: payload.data.type, collectionAddress: payload.data.collectionAddress });
      res.writeHead(204).end();
    } catch {
      state.unverified++;
      res.writeHead(400).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { got, state, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const CREATE = `mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { secret endpoint { id url status cursor filter { collection types } } }
}`;

describe(`webhooks (${backendName})`, () => {
  let app: TestApp;
  let nonce = 0;
  beforeAll(async () => {
    app = await startTestApp({
      API_KEYS: `${KEY},${OTHER_KEY}`,
      WEBHOOKS: 'false', // the tests drive the sender themselves
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_FIRST_MS: '1',
      WEBHOOK_RETRY_MAX_MS: '2',
      WEBHOOK_DISABLE_AFTER_FAILURES: '4',
      WEBHOOK_TIMEOUT_MS: '2000',
    });
    await seedDemo(app.services, { orderCount: 10, saleCount: 0 });
  }, 60_000);
  afterAll(() => app?.close());

  /** A listing submitted through POST /api/v1/orders; returns nothing, the log gets a LIST event. */
  async function list(collectionIndex: number) {
    const wallet = DEMO_WALLETS[3]!;
    const net = app.config.network;
    const now = Math.floor(app.clock.now.getTime() / 1000);
    const order = standardAsk(net, { signer: wallet.address, collection: demoCollectionAddress(collectionIndex), nonce: 1000 + nonce++, now }, { tokenId: String(200 + nonce) });
    const res = await app.rest('/api/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(await signWithEthers6(wallet, net.chainId, net.exchange, order)) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [last] = await app.db.sql.query<{ id: string }>(`SELECT max(id)::text AS id FROM market_events`);
    await untilBelowHorizon(app.db, last!.id);
  }

  async function create(url: string, filter: Record<string, unknown> | null = null, key = KEY) {
    const r = await app.gql<any>(CREATE, { input: { url, filter } }, { 'x-looks-api-key': key });
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    return r.data.createWebhookEndpoint as { secret: string; endpoint: { id: string; status: string } };
  }

  /** A sender as the server runs it, its attempts counted by the metrics. */
  const sender = () => createWebhookWorker(app.services.deps, { onAttempt: (outcome, r) => app.services.webhooks.noteAttempt(outcome, r.durationMs) });

  /** Passes of one worker until a pass finds nothing more to do now. */
  async function drain(worker = sender()) {
    for (let i = 0; i < 50 && (await worker.runOnce()); i++);
    return worker;
  }

  it('delivers signed events that match the filter, and not those that do not', async () => {
    let secretA = '';
    let secretB = '';
    const a = await startReceiver(() => secretA);
    const b = await startReceiver(() => secretB);
    try {
      const c0 = demoCollectionAddress(0);
      const epA = await create(a.url, { collection: c0, types: ['LIST'] });
      const epB = await create(b.url, { collection: demoCollectionAddress(1) });
      secretA = epA.secret;
      secretB = epB.secret;
      expect(epA.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      await list(0);
      await list(0);
      await drain();
      expect(a.got.map((e) => e.type)).toEqual(['LIST', 'LIST']);
      expect(a.got.every((e) => e.collectionAddress === c0 && e.id === e.eventId)).toBe(true);
      expect(a.state.unverified).toBe(0);
      expect(b.got).toEqual([]);
      // delivered once: another pass sends nothing again
      await drain();
      expect(a.got).toHaveLength(2);
      const deliveries = await app.gql<any>(`query($id: ID!) { webhookDeliveries(endpointId: $id) { eventIds attempt statusCode error } }`, { id: epA.endpoint.id }, H);
      expect(deliveries.data.webhookDeliveries.map((d: any) => d.statusCode)).toEqual([204, 204]);
      const metrics = (await app.rest('/metrics')).body as string;
      expect(metrics).toMatch(/^webhook_deliveries_total\{outcome="delivered"\} [1-9]/m);
      expect(metrics).toMatch(/^webhook_delivery_duration_seconds_count [1-9]/m);
      expect(metrics).toMatch(/^webhook_endpoints\{status="ACTIVE"\} [1-9]/m);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('retries with backoff while the receiver fails, then delivers every event in order; disables after the limit; resume loses nothing', async () => {
    let secret = '';
    const r = await startReceiver(() => secret);
    try {
      const ep = await create(r.url, { collection: demoCollectionAddress(2), types: ['LIST'] });
      secret = ep.secret;
      r.state.failNext = 2;
      await list(2);
      await list(2);
      const worker = sender();
      for (let i = 0; i < 40 && r.got.length < 2; i++) {
        await worker.runOnce();
        await new Promise((res) => setTimeout(res, 5));
      }
      expect(r.got).toHaveLength(2);
      expect(Number(r.got[0]!.eventId)).toBeLessThan(Number(r.got[1]!.eventId));

      // fails past WEBHOOK_DISABLE_AFTER_FAILURES: DISABLED, the cursor kept
      r.state.failNext = 1000;
      await list(2);
      for (let i = 0; i < 40; i++) {
        await worker.runOnce();
        await new Promise((res) => setTimeout(res, 5));
      }
      const [disabled] = (await app.gql<any>(`{ webhookEndpoints { id status failureCount lastError } }`, undefined, H)).data.webhookEndpoints.filter((e: any) => e.id === ep.endpoint.id);
      expect(disabled).toMatchObject({ status: 'DISABLED', failureCount: 4, lastError: 'answered 503' });
      r.state.failNext = 0;
      await drain(worker);
      expect(r.got).toHaveLength(2); // nothing while disabled
      const resumed = await app.gql<any>(`mutation($id: ID!) { resumeWebhookEndpoint(id: $id) { status failureCount } }`, { id: ep.endpoint.id }, H);
      expect(resumed.data.resumeWebhookEndpoint).toEqual({ status: 'ACTIVE', failureCount: 0 });
      await drain(worker);
      expect(r.got).toHaveLength(3);
    } finally {
      await r.close();
    }
  });

  it('pause holds deliveries and resume sends them; a rotated secret signs from then on; delete stops everything', async () => {
    let secret = '';
    const r = await startReceiver(() => secret);
    try {
      const ep = await create(r.url, { collection: demoCollectionAddress(3), types: ['LIST'] });
      secret = ep.secret;
      const id = ep.endpoint.id;
      const paused = await app.gql<any>(`mutation($id: ID!) { pauseWebhookEndpoint(id: $id) { status } }`, { id }, H);
      expect(paused.data.pauseWebhookEndpoint.status).toBe('PAUSED');
      await list(3);
      await drain();
      expect(r.got).toHaveLength(0);
      await app.gql(`mutation($id: ID!) { resumeWebhookEndpoint(id: $id) { status } }`, { id }, H);
      await drain();
      expect(r.got).toHaveLength(1);

      const rotated = await app.gql<any>(`mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret endpoint { id } } }`, { id }, H);
      const fresh = rotated.data.rotateWebhookSecret.secret as string;
      expect(fresh).not.toBe(secret);
      // the receiver still holds the old secret: the next delivery does not verify (and is retried)
      await list(3);
      await drain();
      expect(r.state.unverified).toBeGreaterThan(0);
      secret = fresh;
      await app.gql(`mutation($id: ID!) { resumeWebhookEndpoint(id: $id) { status } }`, { id }, H);
      for (let i = 0; i < 20 && r.got.length < 2; i++) {
        await drain();
        await new Promise((res) => setTimeout(res, 5));
      }
      expect(r.got).toHaveLength(2);

      const deleted = await app.gql<any>(`mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }`, { id }, H);
      expect(deleted.data.deleteWebhookEndpoint).toBe(id);
      await list(3);
      await drain();
      expect(r.got).toHaveLength(2);
      const gone = await app.gql<any>(`query($id: ID!) { webhookDeliveries(endpointId: $id) { id } }`, { id }, H);
      expect(gone.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    } finally {
      await r.close();
    }
  });

  it('another key neither sees nor changes an endpoint; no key, unknown keys and bad input are typed errors', async () => {
    const ep = await create('https://hooks.example.com/a');
    const other = { 'x-looks-api-key': OTHER_KEY };
    expect((await app.gql<any>(`{ webhookEndpoints { id } }`, undefined, other)).data.webhookEndpoints).toEqual([]);
    expect((await app.gql<any>(`{ webhookEndpoints { id } }`, undefined, H)).data.webhookEndpoints.map((e: any) => e.id)).toContain(ep.endpoint.id);
    for (const m of ['pauseWebhookEndpoint(id: $id) { id }', 'resumeWebhookEndpoint(id: $id) { id }', 'rotateWebhookSecret(id: $id) { secret }', 'deleteWebhookEndpoint(id: $id)']) {
      const r = await app.gql<any>(`mutation($id: ID!) { ${m} }`, { id: ep.endpoint.id }, other);
      expect(r.errors?.[0]?.extensions?.code, m).toBe('NOT_FOUND');
    }
    expect((await app.gql<any>(`{ webhookEndpoints { id status } }`, undefined, H)).data.webhookEndpoints.find((e: any) => e.id === ep.endpoint.id).status).toBe('ACTIVE');

    const none = await app.gql<any>(`{ webhookEndpoints { id } }`);
    expect(none.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect((await app.gql<any>(`{ webhookEndpoints { id } }`, undefined, { 'x-looks-api-key': 'made-up-key-123' })).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    const bad = async (input: Record<string, unknown>) => (await app.gql<any>(CREATE, { input }, H)).errors?.[0]?.extensions?.code;
    expect(await bad({ url: 'ftp://example.com/x' })).toBe('BAD_REQUEST');
    expect(await bad({ url: 'not a url' })).toBe('BAD_REQUEST');
    expect(await bad({ url: 'https://user:pw@example.com/x' })).toBe('BAD_REQUEST');
    expect(await bad({ url: 'https://example.com/x', filter: { tokenId: '1' } })).toBe('BAD_REQUEST');
    expect(await bad({ url: 'https://example.com/x', after: 'abc' })).toBe('INVALID_CURSOR');
    expect((await app.gql<any>(`mutation { pauseWebhookEndpoint(id: "x1") { id } }`, undefined, H)).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('refuses private-range targets unless the setting allows them, when registered and at delivery', async () => {
    const strict = await startTestApp({ API_KEYS: KEY, WEBHOOKS: 'false' });
    try {
      for (const url of ['http://127.0.0.1:9/x', 'http://10.1.2.3/x', 'http://[::1]/x', 'http://169.254.169.254/latest', 'http://[fd00::1]/x', 'http://localhost/x', 'http://192.168.0.10/x', 'http://[::ffff:10.0.0.1]/x']) {
        const r = await strict.gql<any>(CREATE, { input: { url } }, H);
        expect(r.errors?.[0]?.extensions?.code, url).toBe('BAD_REQUEST');
      }
      // a name passes registration, and is refused at delivery when it resolves to a private
      // address: this machine's own name does (the hosts file maps it to loopback or the local network)
      const ok = await strict.gql<any>(CREATE, { input: { url: `http://${hostname()}:9/x`, after: '0' } }, H);
      if (ok.errors) throw new Error(JSON.stringify(ok.errors));
      const [added] = await strict.testDb.db.sql.query<{ id: string }>(`INSERT INTO market_events (type, collection_address) VALUES ('TRANSFER', $1) RETURNING id::text AS id`, [demoCollectionAddress(0)]);
      await untilBelowHorizon(strict.db, added!.id);
      const worker = createWebhookWorker(strict.services.deps);
      await worker.runOnce();
      const d = await strict.gql<any>(`query($id: ID!) { webhookDeliveries(endpointId: $id) { statusCode error } }`, { id: ok.data.createWebhookEndpoint.endpoint.id }, H);
      expect(d.data.webhookDeliveries[0]?.statusCode ?? null).toBeNull();
      expect(d.data.webhookDeliveries[0]?.error).toMatch(/loopback, private, link-local or unique-local/);
    } finally {
      await strict.close();
    }
  });

  it('/readyz reports a stuck outbox: a due endpoint with events to send that no sender has claimed for far longer than the poll interval', async () => {
    const ep = await create('https://hooks.example.com/stuck');
    await list(0); // something to deliver (an endpoint with nothing after its cursor is never stuck)
    const webhooks = async () => (await app.rest('/readyz')).body.components.webhooks;
    await drain(); // every due endpoint claimed now
    expect(await webhooks()).toMatchObject({ status: 'up', required: false });
    await app.testDb.db.sql.query(`UPDATE webhook_endpoints SET checked_at = now() - interval '1 hour', next_attempt_at = now() - interval '1 hour' WHERE id = $1`, [ep.endpoint.id]);
    expect(await webhooks()).toMatchObject({ status: 'stuck', stuckEndpoints: 1 });
    expect((await app.rest('/readyz')).status).toBe(200); // reported, not required
    await drain();
    expect(await webhooks()).toMatchObject({ status: 'up' });
  });

  it('the running sender keeps a caught-up endpoint leased: the next events go out without a new claim, signed with a secret rotated meanwhile; the cursor is written while it waits; stop releases it at once', async () => {
    let secret = '';
    const r = await startReceiver(() => secret);
    const worker = sender();
    const row = async () =>
      (await app.db.sql.query<{ owner: string | null; cursor: string; checked: string }>(`SELECT lease_owner AS owner, cursor_id::text AS cursor, checked_at::text AS checked FROM webhook_endpoints WHERE id = $1::bigint`, [ep.endpoint.id]))[0]!;
    const until = async (what: () => boolean | Promise<boolean>) => {
      for (let i = 0; i < 200 && !(await what()); i++) await new Promise((ok) => setTimeout(ok, 25));
      expect(await what()).toBe(true);
    };
    const ep = await create(r.url, { collection: demoCollectionAddress(2), types: ['LIST'] });
    secret = ep.secret;
    try {
      worker.start();
      await list(2);
      await until(() => r.got.length === 1);
      // caught up: the cursor is written within moments, and the endpoint stays leased to this sender
      // (at the event or past rows after it that the filter leaves out)
      await until(async () => BigInt((await row()).cursor) >= BigInt(r.got[0]!.eventId));
      const held = await row();
      expect(held.owner).toBe(worker.instanceId);
      await list(2);
      await until(() => r.got.length === 2);
      await until(async () => BigInt((await row()).cursor) >= BigInt(r.got[1]!.eventId));
      // the same claim delivered it (a claim stamps checked_at)
      expect((await row()).checked).toBe(held.checked);
      // a secret rotated while the endpoint is held signs the next delivery
      await new Promise((ok) => setTimeout(ok, 1200));
      const rotated = await app.gql<any>(`mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }`, { id: ep.endpoint.id }, H);
      secret = rotated.data.rotateWebhookSecret.secret;
      await list(2);
      await until(() => r.got.length === 3);
      expect(r.state.unverified).toBe(0);
      expect((await row()).checked).toBe(held.checked);
      const t0 = performance.now();
      await worker.stop();
      expect(performance.now() - t0).toBeLessThan(1000);
      expect((await row()).owner).toBeNull();
      expect(new Set(r.got.map((e) => e.eventId)).size).toBe(3);
    } finally {
      await worker.stop();
      await r.close();
    }
  });

  it('two workers on one database never deliver to one endpoint at once, deliver every event once, and take over an expired lease', async () => {
    let secret = '';
    const r = await startReceiver(() => secret);
    try {
      const ep = await create(r.url, { collection: demoCollectionAddress(4), types: ['LIST'] });
      secret = ep.secret;
      r.state.delayMs = 20;
      for (let i = 0; i < 4; i++) await list(4);
      const w1 = sender();
      const w2 = sender();
      await Promise.all([drain(w1), drain(w2), drain(w1), drain(w2)]);
      expect(r.state.maxInFlight).toBe(1);
      expect(r.got).toHaveLength(4);
      expect(new Set(r.got.map((e) => e.eventId)).size).toBe(4);

      // an instance that died holding the lease: nobody delivers until the lease runs out, then another takes over
      r.state.delayMs = 0;
      await app.db.sql.query(`UPDATE webhook_endpoints SET lease_owner = 'dead-instance', lease_expires_at = now() + interval '1 hour' WHERE id = $1`, [ep.endpoint.id]);
      await list(4);
      await drain(w1);
      expect(r.got).toHaveLength(4);
      await app.db.sql.query(`UPDATE webhook_endpoints SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [ep.endpoint.id]);
      await drain(w2);
      expect(r.got).toHaveLength(5);
    } finally {
      await r.close();
    }
  });
});
