// submit_orders, the one call that stores accepted orders: every order gets its own answer in
// input order; orders on one nonce are decided in input order under the cap; the nonce rules
// answer as the domain's do (the shared vectors); a call that fails writes nothing, and
// submitOrdersIsolated then stores the others alone.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitOrders, submitOrdersIsolated, type OrderInsert } from '../../src/db/submit-orders-sql.js';
import { openTestDatabase, type TestDatabase, backendName } from '../helpers/test-database.js';
import { NONCE_RULE_VECTORS } from '../domain/nonce-rule-vectors.js';

let t: TestDatabase;
const COLLECTION = '0x' + 'ab'.repeat(20);
beforeAll(async () => {
  t = await openTestDatabase();
  await t.db.sql.query(`INSERT INTO collections (address, type, owner) VALUES ($1, 'ERC721', $2)`, [COLLECTION, '0x' + '00'.repeat(20)]);
});
afterAll(() => t?.close());

const hex = (n: number) => '0x' + randomBytes(n).toString('hex');
function insert(over: { signer?: string; nonce?: bigint; hash?: string; type?: 'ERC721' | 'ERC1155' } = {}): OrderInsert {
  return {
    hash: over.hash ?? hex(32),
    order: {
      isOrderAsk: true, signer: over.signer ?? hex(20), collection: COLLECTION, price: 10n ** 18n, tokenId: 2n ** 200n, amount: 1n,
      strategy: hex(20), currency: hex(20), nonce: over.nonce ?? 1n, startTime: 1n, endTime: 2n ** 40n, minPercentageToAsk: 9800n,
      params: [], encodedParams: '0x', signature: hex(65),
    },
    paramsJson: '[]',
    sig: { signature: hex(65), v: 27, r: hex(32), s: hex(32) },
    checkedBlock: null,
    collectionType: over.type ?? 'ERC721',
    discovered: null,
  };
}
const count = async (signer: string) => Number((await t.db.sql.query<{ n: string }>('SELECT count(*)::text AS n FROM orders WHERE signer = $1', [signer]))[0]!.n);

describe(`submit_orders (${backendName})`, () => {
  it('answers each order in input order: stored, duplicate, capped, or a collection type that changed', async () => {
    const signer = hex(20);
    const dup = hex(32);
    const batch = [
      ...Array.from({ length: 21 }, (_, i) => insert({ signer, nonce: 5n, hash: i === 3 || i === 4 ? dup : undefined })),
      insert({ signer, nonce: 7n, type: 'ERC1155' }),
    ];
    const r = await submitOrders(t.db.sql, batch);
    // a real duplicate has the same signer and nonce (the hash covers them): decided in input order
    expect(r.map((x) => x.code)).toEqual([...Array(4).fill('OK'), 'DUPLICATE_ORDER', ...Array(16).fill('OK'), 'COLLECTION_CHANGED']);
    expect(r[0]!.id).toBeTypeOf('bigint');
    expect(r[0]!.createdAt).toBeInstanceOf(Date);
    expect(await count(signer)).toBe(20);
    expect((await submitOrders(t.db.sql, [insert({ signer, nonce: 5n })]))[0]!.code).toBe('NONCE_CAP_REACHED');
    const [row] = await t.db.sql.query<{ token_id: string }>('SELECT token_id::text FROM orders WHERE hash = $1', [batch[0]!.hash]);
    expect(row!.token_id).toBe((2n ** 200n).toString());
  });

  it('applies the nonce rules: a dead nonce and a nonce below the minimum', async () => {
    const signer = hex(20);
    await t.db.sql.query(`INSERT INTO dead_nonces (signer, nonce, reason) VALUES ($1, 3, 'CANCELLED')`, [signer]);
    await t.db.sql.query(`INSERT INTO signer_nonce_state (signer, min_nonce) VALUES ($1, 2)`, [signer]);
    const r = await submitOrders(t.db.sql, [insert({ signer, nonce: 3n }), insert({ signer, nonce: 1n }), insert({ signer, nonce: 4n })]);
    expect(r.map((x) => x.code)).toEqual(['NONCE_USED', 'NONCE_TOO_LOW', 'OK']);
  });

  it('answers each nonce rule vector with the first rule the domain finds broken, or OK', async () => {
    const probes: OrderInsert[] = [];
    for (const v of NONCE_RULE_VECTORS) {
      if ((v.facts.duplicate || v.usedBy === 'fill') && v.facts.ordersOnNonce < 1) throw new Error(`${v.name}: the order it names must be stored`);
      const signer = hex(20);
      const probe = insert({ signer, nonce: v.nonce });
      probes.push(probe);
      // the orders stored on the nonce: the first is the probe itself for a duplicate, and filled for usedBy fill
      const stored = Array.from({ length: v.facts.ordersOnNonce }, (_, i) => insert({ signer, nonce: v.nonce, hash: i === 0 && v.facts.duplicate ? probe.hash : undefined }));
      if (stored.length) expect((await submitOrders(t.db.sql, stored)).map((r) => r.code)).toEqual(stored.map(() => 'OK'));
      if (v.usedBy === 'fill') await t.db.sql.query(`UPDATE orders SET status = 'EXECUTED' WHERE hash = $1`, [stored[0]!.hash]);
      if (v.usedBy === 'cancel') await t.db.sql.query(`INSERT INTO dead_nonces (signer, nonce, reason) VALUES ($1, $2, 'CANCELLED')`, [signer, v.nonce.toString()]);
      if (v.facts.minNonce !== null) await t.db.sql.query(`INSERT INTO signer_nonce_state (signer, min_nonce) VALUES ($1, $2)`, [signer, v.facts.minNonce.toString()]);
    }
    const answers = (await submitOrders(t.db.sql, probes)).map((r) => r.code);
    expect(Object.fromEntries(NONCE_RULE_VECTORS.map((v, i) => [v.name, answers[i]]))).toEqual(
      Object.fromEntries(NONCE_RULE_VECTORS.map((v) => [v.name, v.expected[0] ?? 'OK'])),
    );
  });

  it('writes nothing when the call fails, and the isolated form stores every order but the one at fault', async () => {
    const signer = hex(20);
    const bad = insert({ signer, nonce: 9n });
    bad.hash = bad.hash + 'ff'; // longer than CHAR(66): the insert fails
    const batch = [insert({ signer, nonce: 8n }), bad, insert({ signer, nonce: 10n })];
    await expect(submitOrders(t.db.sql, batch)).rejects.toThrow();
    expect(await count(signer)).toBe(0);
    const r = await submitOrdersIsolated(t.db.sql, batch);
    expect(r[0]).toMatchObject({ code: 'OK' });
    expect(r[1]).toBeInstanceOf(Error);
    expect(r[2]).toMatchObject({ code: 'OK' });
    expect(await count(signer)).toBe(2);
  });
});
