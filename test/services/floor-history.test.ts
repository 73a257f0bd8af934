// The floor history follows time. Listings reach their startTime and pass their
// endTime with no event at all; the history must show the floor at those exact seconds, so that
// floorChange24h/7d/30d compare against floors that really existed. Time is moved across starts and
// ends, the catch-up runs as the indexer runs it (on idle ticks and at the start of every batch),
// and every row of floor_history is checked by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floorCatchUpScript } from '../../src/db/floor-sql.js';
import { percentChange } from '../../src/domain/stats-math.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

const T0 = Math.floor(FIXED_NOW.getTime() / 1000);
const DAY = 86_400;
const COLLECTION = '0x' + '4c'.repeat(20);
let app: TestApp;
let standard: string;
let seq = 0;

async function listing(price: bigint, startTime: number, endTime: number, status = 'VALID') {
  seq++;
  const hash = '0x' + seq.toString(16).padStart(64, '0');
  await app.db.prisma.order.create({
    data: {
      hash,
      collectionAddress: COLLECTION,
      tokenId: BigInt(seq).toString(),
      isOrderAsk: true,
      signer: COLLECTION,
      strategy: standard,
      currencyAddress: app.config.network.weth ?? COLLECTION,
      amount: '1',
      price: price.toString(),
      nonce: String(seq),
      startTime: BigInt(startTime),
      endTime: BigInt(endTime),
      minPercentageToAsk: 9800,
      signature: '0x',
      v: 27,
      r: '0x' + '2'.repeat(64),
      s: '0x' + '3'.repeat(64),
      status: status as 'VALID',
      // created well before T0, as if submitted earlier
      createdAt: new Date((T0 - DAY) * 1000),
    },
  });
  return hash;
}

const at = (s: number) => {
  app.clock.now = new Date(s * 1000);
};
/** what the indexer does on an idle tick */
const tick = () => app.db.sql.exec(floorCatchUpScript(app.services.now(), app.config.network.strategies.standardSale).join(';\n') + ';');
const history = async () =>
  (
    await app.db.sql.query<{ floor: string | null; at: string }>(
      `SELECT floor_price::text AS floor, floor(extract(epoch FROM at))::bigint::text AS at FROM floor_history WHERE collection_address = $1 ORDER BY at, id`,
      [COLLECTION],
    )
  ).map((r) => [Number(r.at) - T0, r.floor]);
const stats = async () => (await app.services.stats.statsFor([COLLECTION]))[0]!;

beforeAll(async () => {
  app = await startTestApp();
  standard = app.config.network.strategies.standardSale[0]!;
  await app.db.prisma.collection.create({ data: { address: COLLECTION, owner: COLLECTION, type: 'ERC721', name: 'floors' } });
});
afterAll(() => app?.close());

describe(`floor history follows time (${backendName})`, () => {
  it('writes the floor at each listing start and end + 1, at the exact second, and nothing when it does not move', async () => {
    at(T0);
    await listing(10n, T0 - 100, T0 + 1000); // A
    await listing(20n, T0 - 100, T0 + 10 * DAY); // D
    await listing(5n, T0 + 100, T0 + 200); // B: floor 5 between +100 and +200
    await listing(3n, T0 + 150, T0 + 160, 'INVALID_OWNER'); // never counts
    await listing(30n, T0 + 120, T0 + 130); // above the floor: moves nothing
    await app.services.stats.recordFloor(COLLECTION); // a listing event at T0
    expect(await history()).toEqual([[0, '10']]);

    at(T0 + 150);
    await tick();
    expect(await history()).toEqual([[0, '10'], [100, '5']]);
    expect((await stats()).floorPrice).toBe('5');

    at(T0 + 5000);
    await tick();
    expect(await history()).toEqual([[0, '10'], [100, '5'], [201, '10'], [1001, '20']]);
    // ticking again changes nothing
    await tick();
    expect(await history()).toHaveLength(4);
  });

  it('computes floorChange24h against the floor that existed 24 hours ago', async () => {
    at(T0 + 150 + DAY);
    await tick();
    const s = await stats();
    expect(s.floorPrice).toBe('20');
    expect(s.floorChange24h).toBe(percentChange(20n, 5n)); // the floor at T0 + 150 was B's 5
    at(T0 + 300 + DAY);
    expect((await stats()).floorChange24h).toBe(percentChange(20n, 10n)); // B had ended: A's 10
    at(T0 + 2000 + DAY);
    expect((await stats()).floorChange24h).toBe(percentChange(20n, 20n));
  });

  it('catches up before an event row, so an event never hides an earlier time-driven change', async () => {
    at(T0 + 2 * DAY);
    await tick();
    const before = (await history()).length;
    const c = await listing(7n, T0 + 2 * DAY + 50, T0 + 2 * DAY + 500); // starts in 50 s
    // 100 s later, with no tick in between, a batch cancels it: the batch script starts with the
    // catch-up (floor 7 at +50, with the statuses of that time), then applies the cancel and
    // records the event row (back to 20)
    at(T0 + 2 * DAY + 100);
    await tick();
    await app.db.prisma.order.update({ where: { hash: c }, data: { status: 'CANCELLED' } });
    await app.services.stats.recordFloor(COLLECTION);
    expect((await history()).slice(before)).toEqual([
      [2 * DAY + 50, '7'],
      [2 * DAY + 100, '20'],
    ]);
  });

  it('a listing submitted now with a startTime in the past does not rewrite the past', async () => {
    at(T0 + 3 * DAY);
    await tick();
    const before = (await history()).length;
    at(T0 + 3 * DAY + 60);
    await listing(50n, T0 + 3 * DAY + 10, T0 + 3 * DAY + 5000); // a boundary at +10 the catch-up will visit
    // created now, live since 1000 s ago, cheaper than the floor: the floor moves now, not before
    seq++;
    await app.db.prisma.order.create({
      data: {
        hash: '0x' + seq.toString(16).padStart(64, '0'),
        collectionAddress: COLLECTION,
        tokenId: String(seq),
        isOrderAsk: true,
        signer: COLLECTION,
        strategy: standard,
        currencyAddress: COLLECTION,
        amount: '1',
        price: '2',
        nonce: String(seq),
        startTime: BigInt(T0 + 3 * DAY - 1000),
        endTime: BigInt(T0 + 3 * DAY + 600),
        minPercentageToAsk: 9800,
        signature: '0x',
        v: 27,
        r: '0x' + '2'.repeat(64),
        s: '0x' + '3'.repeat(64),
        // created_at: the database's now, after the previous catch-up
      },
    });
    await app.services.stats.recordFloor(COLLECTION);
    // at +10 it did not exist yet: no row there; the floor moved to 2 when it was submitted
    expect((await history()).slice(before)).toEqual([[3 * DAY + 60, '2']]);
  });

  it('submissions waiting at once share one floor write: one row with the floor all their listings make', async () => {
    at(T0 + 4 * DAY);
    await tick();
    const before = (await history()).length;
    await listing(2n, T0 + 4 * DAY - 10, T0 + 5 * DAY);
    await listing(1n, T0 + 4 * DAY - 10, T0 + 5 * DAY);
    const sql = app.db.sql;
    const exec = sql.exec;
    let writes = 0;
    sql.exec = (q: string) => {
      if (q.includes('INSERT INTO floor_history')) writes++;
      return exec(q);
    };
    try {
      await Promise.all([1, 2, 3, 4, 5].map(() => app.services.stats.recordFloorSoon(COLLECTION)));
    } finally {
      sql.exec = exec;
    }
    expect(writes).toBe(1);
    expect((await history()).slice(before)).toEqual([[4 * DAY, '1']]);
    // a later one writes again only if the floor moved
    await app.services.stats.recordFloorSoon(COLLECTION);
    expect((await history()).slice(before)).toHaveLength(1);
  });
});
