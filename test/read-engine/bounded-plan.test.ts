// Which generic plans may serve every value: the plans below are the shapes PostgreSQL 15 gave
// for the engine's statements (EXPLAIN (FORMAT JSON, COSTS OFF), trimmed to the keys read).
import { describe, expect, it } from 'vitest';
import { unboundedBecause } from '../../src/read-engine/bounded-plan.js';

const explained = (plan: object) => [{ Plan: plan }];
const index = (extra: object = {}) => ({ 'Node Type': 'Index Scan', 'Relation Name': 'orders', 'Index Name': 'orders_collection_address_is_order_ask_status_price_id_idx', 'Index Cond': '(((collection_address)::text = $1) AND (is_order_ask = true))', ...extra });
const page = (scan: object) =>
  explained({ 'Node Type': 'Result', Plans: [{ 'Node Type': 'Aggregate', Strategy: 'Plain', 'Parent Relationship': 'InitPlan', Plans: [{ 'Node Type': 'Limit', Plans: [scan] }] }] });

describe('unboundedBecause', () => {
  it('accepts a page read in index order, the clock filtering what the index found', () => {
    expect(unboundedBecause(page(index({ Filter: '(end_time >= $2)' })), new Set([1]))).toBeNull();
  });

  it('accepts nested loops, index-only scans and subplans of index scans (the activity page, one order with its collection)', () => {
    const plan = explained({
      'Node Type': 'Aggregate',
      Strategy: 'Plain',
      Plans: [
        {
          'Node Type': 'Limit',
          Plans: [
            {
              'Node Type': 'Nested Loop',
              'Join Type': 'Anti',
              Plans: [index({ 'Relation Name': 'market_events', 'Scan Direction': 'Backward', Filter: "(type = ANY ('{LIST,SALE}'::\"MarketEventType\"[]))" }), { 'Node Type': 'Index Only Scan', 'Index Cond': '(retracts_id = m1.id)' }],
            },
          ],
        },
        { 'Node Type': 'Index Scan', 'Relation Name': 'collections', 'Parent Relationship': 'SubPlan', 'Index Cond': '((address)::text = (o1.collection_address)::text)' },
      ],
    });
    expect(unboundedBecause(plan, new Set([1]))).toBeNull();
  });

  it("accepts a sort of rows LIMITs counted (a token's best bid: the better of two one-row probes)", () => {
    const probe = (extra: object) => ({ 'Node Type': 'Limit', 'Parent Relationship': 'Member', Plans: [index(extra)] });
    const bestOfTwo = (second: object) =>
      explained({
        'Node Type': 'Index Scan',
        'Index Cond': '(id = $8)',
        Plans: [
          {
            'Node Type': 'Limit',
            'Parent Relationship': 'InitPlan',
            Plans: [{ 'Node Type': 'Sort', 'Sort Key': ['x.price DESC', 'x.id'], Plans: [{ 'Node Type': 'Append', Plans: [probe({ 'Index Name': 'orders_token_bid_best_idx' }), second] }] }],
          },
        ],
      });
    // the second probe's own InitPlan (the top price) does not count toward the rows sorted
    const withInitPlan = { 'Node Type': 'Limit', Plans: [{ ...index(), 'Parent Relationship': 'InitPlan' }, index({ 'Index Cond': '(price = $7)' })] };
    expect(unboundedBecause(bestOfTwo(withInitPlan), new Set([1, 2]))).toBeNull();
    // a sort of an index scan's rows is as long as what the index finds
    expect(unboundedBecause(bestOfTwo(index()), new Set([1, 2]))).toBe('Sort');
    expect(unboundedBecause(explained({ 'Node Type': 'Sort', Plans: [{ 'Node Type': 'Subquery Scan', Plans: [index()] }] }), new Set([1]))).toBe('Sort');
  });

  it('refuses a sort of what a bitmap scan found (the book page planned for an average collection)', () => {
    const plan = page({ 'Node Type': 'Sort', 'Sort Key': ['o1.price', 'o1.id'], Plans: [{ 'Node Type': 'Bitmap Heap Scan', 'Relation Name': 'orders', Plans: [{ 'Node Type': 'Bitmap Index Scan' }] }] });
    expect(unboundedBecause(plan, new Set([1]))).toBe('Sort');
  });

  it('refuses a bitmap scan, a sequential scan, a hash join and a hashed aggregate', () => {
    expect(unboundedBecause(page({ 'Node Type': 'Bitmap Heap Scan', 'Relation Name': 'orders', Plans: [] }), new Set())).toBe('Bitmap Heap Scan on orders');
    expect(unboundedBecause(page({ 'Node Type': 'Seq Scan', 'Relation Name': 'collections' }), new Set())).toBe('Seq Scan on collections');
    expect(unboundedBecause(page({ 'Node Type': 'Hash Join', Plans: [index(), { 'Node Type': 'Hash', Plans: [index()] }] }), new Set())).toBe('Hash Join');
    expect(unboundedBecause(explained({ 'Node Type': 'Aggregate', Strategy: 'Hashed', Plans: [index()] }), new Set())).toBe('Hashed Aggregate');
  });

  it("refuses a client's value filtering rows its index did not select, wherever it is", () => {
    // a maker's orders of a collection: the collection's index read, the signer filtered
    const filtered = page(index({ Filter: '(((signer)::text = $3) AND (end_time >= $2))' }));
    expect(unboundedBecause(filtered, new Set([1, 3]))).toMatch(/^Filter on orders on \$3, a client's value/);
    // the same filter on a constant or the clock's parameter is the same for every request
    expect(unboundedBecause(filtered, new Set([1]))).toBeNull();
    const joined = page({ 'Node Type': 'Nested Loop', 'Join Filter': '(o.price >= $12)', Plans: [index(), index()] });
    expect(unboundedBecause(joined, new Set([12]))).toMatch(/^Join Filter on \$12/);
  });

  it("refuses another row's value filtering rows its index did not select (a client's value by way of a join)", () => {
    const joined = page({ 'Node Type': 'Nested Loop', Plans: [index(), index({ 'Index Cond': '((collection_address)::text = (k.collection_address)::text)', Filter: '((token_id = k.token_id) AND (end_time >= $3))' })] });
    expect(unboundedBecause(joined, new Set([1]))).toMatch(/^Filter on orders on k\.token_id, another row's value/);
    expect(unboundedBecause(page(index({ 'Join Filter': '(o1."timestamp" > s.at)' })), new Set())).toMatch(/^Join Filter on orders on o1\."timestamp"/);
    // a quoted literal or a cast is not a column
    expect(unboundedBecause(page(index({ Filter: "((status = 'VALID'::\"OrderStatus\") AND (end_time >= $2))" })), new Set([1]))).toBeNull();
  });

  it('refuses what is not a plan', () => {
    expect(unboundedBecause(undefined, new Set())).toBe('no plan');
    expect(unboundedBecause([{}], new Set())).toBe('no plan');
  });
});
