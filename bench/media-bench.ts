// Media against the goals in docs/media.md: the built server (as `npm start` runs it) serving
// /media/ from its embedded database (the default) or PostgreSQL, loaded from this process.
//
// Prints, with a MET / NOT MET line per goal:
// - a stored 256 px variant served to autocannon: req/s and p99 (goal >= 5,000 req/s, p99 < 20 ms);
// - the same request with If-None-Match: 304s per second (goal: more than the 200s);
// - 10,000 distinct variants served twice over (more than MEDIA_CACHE_MB holds): req/s, p99 and the
//   server's RSS (goal: bounded, the second pass no higher than the first);
// - resize throughput of sharp here: images per second per core, for a 1024 x 1024 PNG to the
//   256 variant and to all three;
// - the first request of a grid of 50 new token images (stored source, only the 64 variant made
//   at ingestion), asked the way a browser asks (6 connections): the time until the grid is
//   complete, against the same grid once encoded.
//
//   npx tsx bench/media-bench.ts [--db pglite|postgres] [--pg-url ...] [--seconds 10] [--connections 16] [--distinct 10000] [--grid 50]
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { SqlRunner } from '../src/db/sql-runner.js';
import { createMediaStore } from '../src/services/media/media-store.js';
import { encodeVariants, prepareImage, sha256Hex, type MediaLimits } from '../src/services/media/prepare-image.js';
import { noisyPng } from '../test/fixtures/media-images.js';
import { cpuSeconds, createBenchDatabase, fixed, LoadDriver, machine, percentile, rssMb, runBench, sampleRss, startBuiltServer, table } from './helpers.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'pglite' },
    'pg-url': { type: 'string' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    distinct: { type: 'string', default: '10000' },
    grid: { type: 'string', default: '50' },
  },
});
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
const DISTINCT = Number(args.distinct);
const GRID = Number(args.grid);
const CACHE_MB = 64;
const GOAL_RPS = 5000;
const GOAL_P99_MS = 20;
/** Real encodes the distinct media share their bytes with (each distinct media is still its own row and cache entry). */
const BASE_IMAGES = 50;
const LIMITS: MediaLimits = { maxBytes: 16 * 1024 * 1024, maxPixels: 64 * 1024 * 1024, timeoutSeconds: 60 };

const verdict = (met: boolean) => (met ? 'MET' : 'NOT MET');

/** The database, migrated, in this process: for PGlite before the server opens the folder. */
async function openBenchDb(env: Record<string, string>) {
  const { openDatabase } = await import('../src/db/database.js');
  const { migrate } = await import('../src/db/migrate.js');
  const db = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR, poolSize: 4 });
  await migrate(db.sql);
  return db;
}

/** `count` distinct media whose w256 variants are copies of BASE_IMAGES real encodes; answers their hashes. */
async function insertDistinct(sql: SqlRunner, prefix: string, count: number): Promise<string[]> {
  const encodes = await Promise.all(
    Array.from({ length: BASE_IMAGES }, async (_, k) => {
      const p = await prepareImage(await noisyPng(400, 400, 1000 + k), ['w256'], LIMITS);
      if (!p.ok) throw new Error(p.message);
      return p;
    }),
  );
  const source = encodes[0]!.source;
  for (const [k, p] of encodes.entries()) {
    const v = p.variants[0]!;
    // one statement per base image: its share of the distinct hashes, source and variant rows at once
    await sql.query(
      `WITH ids AS (SELECT encode(sha256(convert_to($11 || i, 'UTF8')), 'hex') AS sha256 FROM generate_series(0, $1::int - 1) AS i WHERE i % $2::int = $3::int),
       m AS (INSERT INTO media (sha256, mime_type, width, height, byte_size, source) SELECT sha256, 'image/png', 400, 400, $4::int, decode($5::text, 'base64') FROM ids RETURNING sha256)
       INSERT INTO media_variants (sha256, variant, content_type, width, height, byte_length, etag, bytes)
       SELECT sha256, 'w256', 'image/webp', $6::int, $7::int, $8::int, $9, decode($10::text, 'base64') FROM m`,
      [count, BASE_IMAGES, k, source.length, source.toString('base64'), v.width, v.height, v.bytes.length, v.etag, v.bytes.toString('base64'), prefix],
    );
  }
  return Array.from({ length: count }, (_, i) => sha256Hex(Buffer.from(`${prefix}${i}`, 'utf8')));
}

/** `count` token images as the worker leaves them: source stored, only the 64 variant encoded. */
async function insertTokenImages(sql: SqlRunner, count: number, seed: number): Promise<string[]> {
  const store = createMediaStore(sql);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const p = await prepareImage(await noisyPng(1024, 1024, seed + i), ['w64'], LIMITS);
    if (!p.ok) throw new Error(p.message);
    await store.store(p);
    out.push(p.sha256);
  }
  return out;
}

/** GETs over `connections` keep-alive connections, each taking the next path: every response time. */
async function fetchAll(base: string, paths: readonly string[], connections: number): Promise<{ times: Float64Array; ms: number; failures: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const times = new Float64Array(paths.length);
  let next = 0;
  let failures = 0;
  const started = performance.now();
  const one = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const t0 = performance.now();
      http
        .get(`${base}${path}`, { agent }, (res) => {
          res.on('data', () => {});
          res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - t0 : -1));
        })
        .on('error', reject);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < paths.length) {
        const i = next++;
        const ms = await one(paths[i]!);
        if (ms < 0) failures++;
        times[i] = Math.max(0, ms);
      }
    }),
  );
  agent.destroy();
  return { times: times.sort(), ms: performance.now() - started, failures };
}

/** Encodes per CPU second (this process: sharp's threads included), `rounds` sources `concurrency` at a time. */
async function resizeThroughput(sources: Buffer[], variants: Array<'w64' | 'w256' | 'w1024'>, concurrency: number) {
  const inspected = await Promise.all(sources.map((s) => prepareImage(s, [], LIMITS)));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < sources.length) {
        const p = inspected[next++]!;
        if (!p.ok) throw new Error(p.message);
        const out = await encodeVariants(p.source, p.type, p.image, variants, LIMITS);
        if (!Array.isArray(out)) throw new Error(out.message);
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return { perSecond: sources.length / wall, perCoreSecond: sources.length / cpuSeconds };
}

await runBench(async () => {
  const kind = args.db === 'postgres' ? 'postgres' : 'pglite';
  console.log(`media bench: ${machine()}; ${kind}; autocannon ${CONNECTIONS} connections x ${SECONDS} s\n`);

  // resize throughput first, alone on the machine
  const sources = await Promise.all(Array.from({ length: 24 }, (_, i) => noisyPng(1024, 1024, 300 + i)));
  const cores = os.availableParallelism();
  const toW256 = await resizeThroughput(sources, ['w256'], cores);
  const toAll = await resizeThroughput(sources, ['w64', 'w256', 'w1024'], cores);

  const benchDb = await createBenchDatabase(kind, { prefix: 'media', pgUrl: args['pg-url'] });
  const db = await openBenchDb(benchDb.env);
  const hot = await insertDistinct(db.sql, 'hot-', 1);
  const distinct = await insertDistinct(db.sql, 'distinct-', DISTINCT);
  const grid = await insertTokenImages(db.sql, GRID, 5000);
  const wideGrid = await insertTokenImages(db.sql, GRID, 6000);
  // the embedded database is one process's: the server opens the folder after us
  if (kind === 'pglite') await db.close();

  const server = startBuiltServer({ ...benchDb.env, MEDIA: 'false', MEDIA_CACHE_MB: String(CACHE_MB), SEED: '0' });
  const base = await server.base();
  const driver = new LoadDriver();
  const hotPath = `/media/${hot[0]}/w256`;
  const hotRes = await fetch(`${base}${hotPath}`);
  if (hotRes.status !== 200) throw new Error(`${hotPath}: ${hotRes.status}`);
  const etag = hotRes.headers.get('etag')!;
  if (Buffer.from(await hotRes.arrayBuffer()).subarray(0, 4).toString('latin1') !== 'RIFF') throw new Error(`${hotPath}: not a WebP`);

  // a stored variant, again and again (its bytes checked once above: turning every body into text
  // to check it would cost the load generator more than the server spends answering), and the CPU
  // each side spent on it: they share the machine's cores
  await driver.run({ url: `${base}${hotPath}`, method: 'GET', connections: CONNECTIONS, duration: 2, expectPrefix: '' });
  const cpu0 = { server: server.cpuSeconds(), driver: cpuSeconds(driver.pid) };
  const served = await driver.measure({ url: `${base}${hotPath}`, method: 'GET', connections: CONNECTIONS, expectPrefix: '' }, { duration: SECONDS, warmup: 0 });
  const served2xx = served.reqPerSec * served.seconds;
  const serverUsPerRequest = ((server.cpuSeconds() - cpu0.server) / served2xx) * 1e6;
  const driverUsPerRequest = ((cpuSeconds(driver.pid) - cpu0.driver) / served2xx) * 1e6;
  // revalidations: 304 with no body
  const revalidated = await driver.run({ url: `${base}${hotPath}`, method: 'GET', headers: { 'if-none-match': etag }, connections: CONNECTIONS, duration: SECONDS, expectPrefix: '' });
  const notModifiedPerSec = revalidated.responses / revalidated.seconds;
  if (revalidated.errors + revalidated.timeouts + revalidated.mismatches) throw new Error('304 run had errors');

  // 10,000 distinct variants, twice: the first pass reads the database, the cache turns over
  const rssBefore = rssMb(server.pid);
  const paths = distinct.map((sha) => `/media/${sha}/w256`);
  const rss = sampleRss(server.pid, 50);
  const pass1 = await fetchAll(base, paths, CONNECTIONS);
  const rssAfter1 = rssMb(server.pid);
  const pass2 = await fetchAll(base, paths, CONNECTIONS);
  const rssAfter2 = rssMb(server.pid);
  const rssDuring = rss.stop();
  if (pass1.failures + pass2.failures) throw new Error(`${pass1.failures + pass2.failures} distinct requests failed`);

  // a grid of new token images, as a browser asks for it (6 connections per origin), then again warm
  const gridPaths = grid.map((sha) => `/media/${sha}/w256`);
  const cold = await fetchAll(base, gridPaths, 6);
  const warm = await fetchAll(base, gridPaths, 6);
  if (cold.failures + warm.failures) throw new Error('grid requests failed');
  // the same, for a second grid asked with one connection per image (HTTP/2 or a CDN's misses)
  const coldWide = await fetchAll(base, wideGrid.map((sha) => `/media/${sha}/w256`), GRID);

  server.stop();
  if (kind === 'postgres') await db.close();

  console.log(
    table(
      ['measure', 'value', 'goal', 'verdict'],
      [
        ['stored 256 variant: req/s', fixed(served.reqPerSec, 0), `>= ${GOAL_RPS}`, verdict(served.reqPerSec >= GOAL_RPS)],
        ['stored 256 variant: p50 / p99 ms', `${fixed(served.p50, 1)} / ${fixed(served.p99, 1)}`, `p99 < ${GOAL_P99_MS}`, verdict(served.p99 < GOAL_P99_MS)],
        ['  CPU per request, server / autocannon (us)', `${fixed(serverUsPerRequest, 0)} / ${fixed(driverUsPerRequest, 0)}`, '', ''],
        // what one core does when the load generator is not on the same cores (derived, not measured)
        ['  one core\'s worth of the server: req/s (1 s / its CPU per request)', fixed(1e6 / serverUsPerRequest, 0), `>= ${GOAL_RPS}`, verdict(1e6 / serverUsPerRequest >= GOAL_RPS)],
        ['If-None-Match: 304/s (p99 ms)', `${fixed(notModifiedPerSec, 0)} (${fixed(revalidated.p99, 1)})`, '> the 200s', verdict(notModifiedPerSec > served.reqPerSec)],
        [`${DISTINCT} distinct, pass 1: req/s, p99 ms`, `${fixed(DISTINCT / (pass1.ms / 1000), 0)}, ${fixed(percentile(pass1.times, 99), 1)}`, '', ''],
        [`${DISTINCT} distinct, pass 2: req/s, p99 ms`, `${fixed(DISTINCT / (pass2.ms / 1000), 0)}, ${fixed(percentile(pass2.times, 99), 1)}`, '', ''],
        [
          'server RSS MB: before / pass 1 / pass 2 / max',
          `${fixed(rssBefore, 0)} / ${fixed(rssAfter1, 0)} / ${fixed(rssAfter2, 0)} / ${fixed(rssDuring.maxMb, 0)}`,
          `bounded: max <= before + ${CACHE_MB} + 64, pass 2 <= pass 1 + 10 %`,
          verdict(rssDuring.maxMb <= rssBefore + CACHE_MB + 64 && rssAfter2 <= rssAfter1 * 1.1),
        ],
        ['resize 1024 PNG -> w256: images/s/core (images/s)', `${fixed(toW256.perCoreSecond, 1)} (${fixed(toW256.perSecond, 1)} on ${cores} cores)`, 'printed', ''],
        ['resize 1024 PNG -> all 3: images/s/core (images/s)', `${fixed(toAll.perCoreSecond, 1)} (${fixed(toAll.perSecond, 1)} on ${cores} cores)`, 'printed', ''],
        [`grid of ${GRID} new token images, 6 connections: complete in ms`, `${fixed(cold.ms, 0)} (warm: ${fixed(warm.ms, 0)})`, 'printed', ''],
        [`  per image p50 / p99 ms (warm)`, `${fixed(percentile(cold.times, 50), 0)} / ${fixed(percentile(cold.times, 99), 0)} (${fixed(percentile(warm.times, 50), 1)} / ${fixed(percentile(warm.times, 99), 1)})`, '', ''],
        [`grid of ${GRID} new token images, ${GRID} connections: complete in ms`, fixed(coldWide.ms, 0), 'printed', ''],
      ],
    ),
  );
  console.log(`\n${DISTINCT} distinct media share the bytes of ${BASE_IMAGES} real 256 px encodes (each is its own row and cache entry); MEDIA_CACHE_MB=${CACHE_MB}.`);
});
