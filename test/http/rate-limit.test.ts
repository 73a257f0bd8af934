// Rate-limit subjects and the shared Redis budget with its outage fallback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientAddress, createRateLimiter, rateLimitSubject, type RateLimitClient } from '../../src/http/rate-limit.js';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;
const client = (c: Partial<RateLimitClient>): RateLimitClient => ({ apiKey: null, remoteAddress: '10.0.0.7', forwardedFor: null, ...c });
const NONCE = '/api/v1/orders/nonce?address=0x' + '1'.repeat(40);

describe('rate-limit subject', () => {
  const opts = { perMinute: 5, apiKeys: new Map([['known-key-1', 50]]), trustProxy: false as const };

  it('charges an unknown key to the client address and a known key to itself with its own budget', () => {
    expect(rateLimitSubject(client({ apiKey: 'made-up-1' }), opts)).toEqual({ key: 'ip:10.0.0.7', perMinute: 5 });
    expect(rateLimitSubject(client({ apiKey: 'made-up-2' }), opts)).toEqual({ key: 'ip:10.0.0.7', perMinute: 5 });
    const known = rateLimitSubject(client({ apiKey: 'known-key-1' }), opts);
    expect(known.perMinute).toBe(50);
    expect(known.key).toMatch(/^key:[0-9a-f]{32}$/);
    expect(known.key).not.toContain('known-key-1');
  });

  it('ignores X-Forwarded-For unless a trusted proxy sent it', () => {
    const viaProxy = client({ remoteAddress: '127.0.0.1', forwardedFor: '203.0.113.9, 198.51.100.4' });
    expect(clientAddress(viaProxy, false)).toBe('127.0.0.1');
    expect(clientAddress(viaProxy, ['loopback'])).toBe('198.51.100.4');
    expect(clientAddress(viaProxy, 1)).toBe('198.51.100.4');
    expect(clientAddress(viaProxy, 2)).toBe('203.0.113.9');
    // a peer that is not a trusted proxy cannot pick its own address
    expect(clientAddress(client({ remoteAddress: '192.0.2.1', forwardedFor: '203.0.113.9' }), ['loopback'])).toBe('192.0.2.1');
  });

  it('reads API_KEYS (key or key:perMinute), WRITE_API_KEYS and TRUST_PROXY from the environment', () => {
    const c = loadConfig({ API_KEYS: 'alpha-key-1:1000, beta-key-22', WRITE_API_KEYS: 'writer-key-3', RATE_LIMIT_API_KEY_PER_MINUTE: '300', TRUST_PROXY: 'loopback,10.0.0.0/8' });
    expect([...c.apiKeyLimits]).toEqual([['writer-key-3', 300], ['alpha-key-1', 1000], ['beta-key-22', 300]]);
    expect(c.trustProxy).toEqual(['loopback', '10.0.0.0/8']);
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(() => loadConfig({ TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/99' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ API_KEYS: 'short' })).toThrow(/API_KEYS/);
  });
});

describe('rate limit over HTTP', () => {
  let app: TestApp;
  let server: Server;
  let base: string;
  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '3', API_KEYS: 'partner-key-1:6', TRUST_PROXY: 'loopback' });
    server = createServer(app.yoga);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await app?.close();
  });

  it('limits a client that invents a new X-Looks-Api-Key per request', async () => {
    const xff = { 'x-forwarded-for': '198.51.100.20' };
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(base + NONCE, { headers: { ...xff, 'x-looks-api-key': `invented-${i}` } });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  it('gives a known key its own budget and another forwarded client its own', async () => {
    const known = [];
    for (let i = 0; i < 7; i++) {
      const res = await fetch(base + NONCE, { headers: { 'x-forwarded-for': '198.51.100.21', 'x-looks-api-key': 'partner-key-1' } });
      known.push([res.status, res.headers.get('ratelimit-limit')]);
      await res.arrayBuffer();
    }
    expect(known.slice(0, 6).every(([s, l]) => s === 200 && l === '6')).toBe(true);
    expect(known[6]![0]).toBe(429);
    const other = await fetch(base + NONCE, { headers: { 'x-forwarded-for': '198.51.100.22' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-limit')).toBe('3');
  });
});

describe.skipIf(!TEST_REDIS_URL)('rate limit shared through Redis (set TEST_REDIS_URL to run)', () => {
  const prefix = () => `test:rl:${randomBytes(6).toString('hex')}`;
  const base = { perMinute: 4, apiKeys: new Map(), trustProxy: false as const };

  it('two instances draw from one budget', async () => {
    const redisPrefix = prefix();
    const a = createRateLimiter({ ...base, redisUrl: TEST_REDIS_URL, redisPrefix })!;
    const b = createRateLimiter({ ...base, redisUrl: TEST_REDIS_URL, redisPrefix })!;
    try {
      await waitFor(() => a.redisReady() === true && b.redisReady() === true);
      const allowed = [];
      for (let i = 0; i < 8; i++) allowed.push((await (i % 2 ? a : b).consume(client({}))).allowed);
      expect(allowed.filter(Boolean)).toHaveLength(4);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeps answering from memory while Redis hangs or refuses, and shares again when it is back', async () => {
    const u = new URL(TEST_REDIS_URL!);
    const proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || 6379) });
    const redisPrefix = prefix();
    const rejections: unknown[] = [];
    const onRejection = (r: unknown) => rejections.push(r);
    process.on('unhandledRejection', onRejection);
    const limiter = createRateLimiter({ ...base, perMinute: 100, redisUrl: `redis://127.0.0.1:${proxy.port}`, redisPrefix, redisTimeoutMs: 200 })!;
    try {
      await waitFor(() => limiter.redisReady() === true);
      expect((await limiter.consume(client({}))).allowed).toBe(true);

      await proxy.setMode('hang');
      let t0 = performance.now();
      const hung = await limiter.consume(client({}));
      expect(hung.allowed).toBe(true);
      expect(performance.now() - t0).toBeLessThan(1500);

      await proxy.setMode('refuse');
      await waitFor(() => limiter.redisReady() === false);
      t0 = performance.now();
      for (let i = 0; i < 5; i++) expect((await limiter.consume(client({}))).allowed).toBe(true);
      expect(performance.now() - t0).toBeLessThan(500);

      await proxy.setMode('forward');
      await waitFor(() => limiter.redisReady() === true, 8000);
      const back = await limiter.consume(client({ remoteAddress: '10.9.9.9' }));
      expect(back.allowed).toBe(true);
      expect(back.headers['RateLimit-Remaining']).toBe('99');
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
      await limiter.close();
      await proxy.close();
    }
  });
});

async function waitFor(cond: () => boolean, ms = 4000) {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
