// Boot-time migrations: applied to an empty database, a no-op on a migrated one, recorded in
// Prisma's own table with Prisma's checksum, refused when edited after being applied, safe when
// several instances start at once, and matching every model of the Prisma schema. The repeatable
// steps (src/db/sql) run after them, and again only when their text changed.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrate, prismaChecksum, readMigrations, readRepeatables } from '../../src/db/migrate.js';
import { getDatamodel } from '../../src/generated/pothos-types.js';
import { openTestDatabase, backendName, TEST_DATABASE_URL, createPostgresDatabase, type TestDatabase } from '../helpers/test-database.js';
import { titled } from '../helpers/skip-reasons.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase({ migrate: false });
});
afterAll(() => t?.close());

describe(`migrations (${backendName})`, () => {
  it('applies every migration to an empty database, then nothing on the next boot', async () => {
    const all = readMigrations().map((m) => m.name);
    expect(all.length).toBeGreaterThan(0);
    const repeatables = readRepeatables().map((r) => r.name);
    expect(repeatables).toContain('submit_orders.sql');
    expect(await migrate(t.db.sql)).toEqual({ applied: all, alreadyApplied: [], repeated: repeatables, newer: [] });
    expect(await migrate(t.db.sql)).toEqual({ applied: [], alreadyApplied: all, repeated: [], newer: [] });
  });

  it('runs a repeatable step again when its text changed, and only then', async () => {
    const edit = (sql: string) => readRepeatables().map((r) => (r.name === 'submit_orders.sql' ? { ...r, sql, checksum: prismaChecksum(sql) } : r));
    const original = readRepeatables().find((r) => r.name === 'submit_orders.sql')!.sql;
    // a visible change: the function's comment
    const edited = edit(`${original}\nCOMMENT ON FUNCTION submit_orders(JSONB) IS 'edited';`);
    const comment = async () =>
      (await t.db.sql.query<{ c: string | null }>(`SELECT obj_description('submit_orders(jsonb)'::regprocedure, 'pg_proc') AS c`))[0]!.c;
    expect((await migrate(t.db.sql, readMigrations(), edited)).repeated).toEqual(['submit_orders.sql']);
    expect(await comment()).toBe('edited');
    expect((await migrate(t.db.sql, readMigrations(), edited)).repeated).toEqual([]);
    expect((await migrate(t.db.sql)).repeated).toEqual(['submit_orders.sql']);
    const [row] = await t.db.sql.query<{ checksum: string }>(`SELECT checksum FROM _repeatable_migrations WHERE name = 'submit_orders.sql'`);
    expect(row!.checksum).toBe(prismaChecksum(original));
    // CREATE OR REPLACE keeps the comment; what counts is that the original text ran again
    expect((await migrate(t.db.sql)).repeated).toEqual([]);
  });

  it('rolls back a failing repeatable step completely and records nothing for it', async () => {
    const broken = { name: 'zz_broken.sql', sql: 'CREATE FUNCTION half_written() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\nSELECT * FROM no_such_table;', checksum: 'z' };
    await expect(migrate(t.db.sql, readMigrations(), [...readRepeatables(), broken])).rejects.toThrow(/repeatable step zz_broken.sql failed and was rolled back/);
    expect(await t.db.sql.query(`SELECT 1 FROM pg_proc WHERE proname = 'half_written'`)).toHaveLength(0);
    expect(await t.db.sql.query(`SELECT 1 FROM _repeatable_migrations WHERE name = 'zz_broken.sql'`)).toHaveLength(0);
    expect(await migrate(t.db.sql)).toMatchObject({ applied: [], repeated: [] });
  });

  it('records each migration the way Prisma does (sha256 of the file, finished, one step)', async () => {
    const rows = await t.db.sql.query<{ migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number }>(
      'SELECT migration_name, checksum, finished_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name',
    );
    for (const [i, m] of readMigrations().entries()) {
      expect(rows[i]!.migration_name).toBe(m.name);
      expect(rows[i]!.checksum).toBe(createHash('sha256').update(m.sql).digest('hex'));
      expect(rows[i]!.finished_at).not.toBeNull();
      expect(rows[i]!.applied_steps_count).toBe(1);
    }
  });

  it('refuses to start when an applied migration was edited', async () => {
    const edited = readMigrations().map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\n-- edited`, checksum: 'x' } : m));
    await expect(migrate(t.db.sql, edited)).rejects.toThrow(/modified after it was applied/);
  });

  it('rolls back a failing migration completely and records nothing for it', async () => {
    const broken = [...readMigrations(), { name: '29990101000000_broken', sql: 'CREATE TABLE half_written (id int);\nSELECT * FROM no_such_table;', checksum: 'y' }];
    await expect(migrate(t.db.sql, broken)).rejects.toThrow(/failed and was rolled back/);
    const table = await t.db.sql.query(`SELECT 1 FROM information_schema.tables WHERE table_name = 'half_written'`);
    expect(table).toHaveLength(0);
    const rec = await t.db.sql.query(`SELECT 1 FROM _prisma_migrations WHERE migration_name = '29990101000000_broken'`);
    expect(rec).toHaveLength(0);
  });

  it('matches the Prisma schema: every model can be written and read through the client', async () => {
    const models = Object.keys(getDatamodel().datamodel.models);
    expect(models.sort()).toEqual(['Collection', 'CollectionSupply', 'FloorPoint', 'GlobalMarketData', 'Order', 'Sale', 'SaleBucket', 'SignerNonceState', 'TokenBalance', 'DeadNonce', 'SaleDayBucket', 'IndexerCursor', 'IndexedBlock', 'OrderStatusChange', 'NonceEvent', 'TokenTransfer', 'FloorTimeCursor', 'CollectionBackfill', 'MarketEvent', 'CollectionBestBid', 'CurrencyHolding', 'CollectionFloorKey', 'CollectionVolumeMark', 'VolumeMarkAnchor', 'TokenMetadata', 'TokenAttribute', 'TraitValue', 'CollectionMetadata'].sort());
    const p = t.db.prisma;
    const address = '0x' + '5a'.repeat(20);
    await p.collection.create({ data: { address, owner: address, type: 'ERC1155', name: 'm' } });
    const big = ((1n << 256n) - 1n).toString();
    await p.order.create({
      data: { hash: '0x' + '1'.repeat(64), collectionAddress: address, tokenId: big, isOrderAsk: true, signer: address, strategy: address, currencyAddress: address, amount: big, price: big, nonce: big, startTime: 1n, endTime: 2n, minPercentageToAsk: 9800, signature: '0x', v: 27, r: '0x' + '2'.repeat(64), s: '0x' + '3'.repeat(64) },
    });
    await p.sale.create({ data: { collectionAddress: address, tokenId: big, amount: '1', price: big, currencyAddress: address, buyer: address, seller: address, isTakerAsk: false, blockNumber: 1n, txHash: '0x' + '4'.repeat(64), logIndex: 0, timestamp: new Date() } });
    await p.saleBucket.create({ data: { collectionAddress: address, bucketStart: new Date(0), volume: big + '000', count: 1 } });
    await p.tokenBalance.create({ data: { collectionAddress: address, tokenId: big, owner: address, balance: big } });
    await p.collectionSupply.create({ data: { collectionAddress: address, totalSupply: big, countOwners: 1 } });
    await p.floorPoint.create({ data: { collectionAddress: address, floorPrice: null, at: new Date() } });
    await p.collectionBestBid.create({ data: { collectionAddress: address, price: big, orderHash: '0x' + '1'.repeat(64), at: new Date() } });
    // a collection's floor key row is written with the collection (unknown until a refresh); the anchor is the migration's
    expect(await p.collectionFloorKey.findUniqueOrThrow({ where: { collectionAddress: address } })).toMatchObject({ floorPrice: null, validFrom: 0n, validTo: 0n });
    expect((await p.volumeMarkAnchor.findUniqueOrThrow({ where: { id: 1 } })).at.getTime()).toBe(0);
    await p.collectionVolumeMark.create({ data: { collectionAddress: address, volume24h: big, volume7d: big } });
    expect((await p.collectionVolumeMark.findFirstOrThrow()).volume7d.toFixed()).toBe(big);
    await p.globalMarketData.create({ data: { collectionAddress: address, volume24hGlobal: big, floorGlobal: big, observedAt: new Date() } });
    await p.signerNonceState.create({ data: { signer: address, minNonce: big } });
    await p.deadNonce.create({ data: { signer: address, nonce: big, reason: 'CANCELLED' } });
    expect((await p.deadNonce.findFirstOrThrow()).nonce.toFixed()).toBe(big);
    await p.indexerCursor.create({ data: { stream: 'm', chainId: 1, blockNumber: 1n, blockHash: '0x' + '5'.repeat(64), blockTimestamp: 2n, lastEventBlock: 1n, lastEventTimestamp: 2n } });
    await p.floorTimeCursor.create({ data: { id: 1, processedUntil: 3n } });
    await p.collectionBackfill.create({ data: { collectionAddress: address, fromBlock: 0n, toBlock: 5n, nextBlock: 0n } });
    await p.collection.update({ where: { address }, data: { indexedFromBlock: 6n } });
    expect((await p.collectionBackfill.findFirstOrThrow({ include: { collection: true } })).collection.indexedFromBlock).toBe(6n);
    const o = await p.order.findFirstOrThrow({ include: { collection: { include: { supply: true, globalMarket: true, floorHistory: true, saleBuckets: true, sales: true, tokenBalances: true } } } });
    expect(o.price.toFixed()).toBe(big);
    expect(o.collection.saleBuckets[0]!.volume.toFixed()).toBe(big + '000');
    // the order and the sale above each wrote their event; the log can be read and written too
    await p.marketEvent.create({ data: { type: 'RETRACTED', collectionAddress: address, tokenId: big, price: big, retractsId: 1n, blockNumber: 1n } });
    const logged = await p.marketEvent.findMany({ orderBy: { id: 'asc' } });
    expect(logged.map((e) => e.type)).toEqual(['LIST', 'SALE', 'FLOOR_CHANGE', 'BEST_BID_CHANGE', 'RETRACTED']);
    expect(logged[0]!.price!.toFixed()).toBe(big);
    // token metadata, its traits, their counts and a collection's rarity run
    await p.tokenMetadata.create({ data: { collectionAddress: address, tokenId: big, status: 'OK', name: 'n', rarityScore: 1.5, rarityRank: 1, dueAt: new Date() } });
    await p.tokenAttribute.create({ data: { collectionAddress: address, tokenId: big, traitType: 'Level', value: '3', kind: 'NUMBER', numberValue: 3, position: 0 } });
    await p.traitValue.create({ data: { collectionAddress: address, traitType: 'Level', value: '3', kind: 'NUMBER', numberValue: 3, tokenCount: 1 } });
    await p.collectionMetadata.create({ data: { collectionAddress: address, rarityTokensScored: 1, rarityMaxRank: 1, rarityMethod: 'm', rarityVersion: 'v' } });
    expect((await p.tokenMetadata.findFirstOrThrow()).tokenId.toFixed()).toBe(big);
    expect((await p.tokenAttribute.findFirstOrThrow()).numberValue).toBe(3);
    expect((await p.traitValue.findFirstOrThrow()).tokenCount).toBe(1);
    expect((await p.collectionMetadata.findFirstOrThrow()).rarityMethod).toBe('m');
  });
});

describe.runIf(TEST_DATABASE_URL)(titled('migrations under concurrent boots (postgres)', 'postgres'), () => {
  it('applies each migration once when four instances start at the same moment', async () => {
    const created = await createPostgresDatabase();
    const dbs = await Promise.all([1, 2, 3, 4].map(() => openDatabase({ databaseUrl: created.url, poolSize: 2 })));
    try {
      const results = await Promise.all(dbs.map((d) => migrate(d.sql)));
      const applied = results.flatMap((r) => r.applied);
      expect(applied.sort()).toEqual(readMigrations().map((m) => m.name).sort());
      const rows = await dbs[0]!.sql.query('SELECT migration_name FROM _prisma_migrations');
      expect(rows).toHaveLength(readMigrations().length);
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
      await created.drop();
    }
  });
});
