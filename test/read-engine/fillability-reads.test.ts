// Order.fillability in SQL (src/read-engine/fillability-reads.ts) against its resolver, byte for
// byte, for orders of every status, one not started yet and one past its end; the status changes
// journaled as the indexer journals them (so the event log holds their block and transaction),
// one of them undone by a reorg, an expiry the indexer logged; the WETH reads of the bid makers
// short of it; and the page is one statement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON_FIXES } from '../../src/domain/order-fillability.js';
import { transferManagerFor } from '../../src/domain/networks.js';
import { retractMarketEventsAboveSql } from '../../src/db/market-events-sql.js';
import { FIXED_NOW, startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';
import { answerVia } from '../helpers/engine-answer.js';

const NOW = BigInt(Math.floor(FIXED_NOW.getTime() / 1000));
const hashOf = (n: number) => `0x${(0xf111 + n).toString(16).padStart(64, '0')}`;
const txOf = (n: number) => `0x${(0xabc00 + n).toString(16).padStart(64, '0')}`;

// [stored status, start offset, end offset, journaled change (block)]
const CASES = [
  ['VALID', -60, 3600, null],
  ['VALID', 600, 3600, null], // not started
  ['VALID', -7200, -60, null], // past its end
  ['EXECUTED', -60, 3600, 101],
  ['CANCELLED', -60, 3600, 102],
  ['INVALID_OWNER', -60, 3600, 103],
  ['ERC_APPROVAL', -60, 3600, 104],
  ['ERC20_BALANCE', -60, 3600, 105],
  ['ERC20_APPROVAL', -60, 3600, 106],
  ['ERC_APPROVAL', -60, 3600, 107], // its journaled change is undone below
  ['INVALID_OWNER', -60, -10, 108], // a live problem past its end reads EXPIRED
  ['VALID', -7200, -60, null], // past its end, and the indexer logged the expiry (block 109)
] as const;
const signerOf = (n: number) => `0x${(n === 8 ? '5f' : '5e').repeat(20)}`;
const ETH = 10n ** 18n;

let app: TestApp;
let erc721 = '';
let erc1155 = '';

beforeAll(async () => {
  app = await startTestApp({}, { now: FIXED_NOW });
  const net = app.services.deps.network;
  erc721 = (await app.services.collections.upsertCollection({ address: `0x${'c1'.repeat(20)}`, type: 'ERC721', name: 'Fill 721' })).collection.address;
  erc1155 = (await app.services.collections.upsertCollection({ address: `0x${'c2'.repeat(20)}`, type: 'ERC1155', name: 'Fill 1155' })).collection.address;
  await app.db.prisma.order.createMany({
    data: CASES.map(([, start, end], n) => ({
      hash: hashOf(n), collectionAddress: n % 2 ? erc1155 : erc721, tokenId: String(n + 1), isOrderAsk: n % 3 !== 1,
      signer: signerOf(n), strategy: net.strategies.standardSale[0]!, currencyAddress: net.weth, amount: '1', price: String(10n ** 18n + BigInt(n)),
      nonce: String(n), startTime: NOW + BigInt(start), endTime: NOW + BigInt(end), minPercentageToAsk: 9800, status: 'VALID',
      signature: '0x', v: 27, r: `0x${'0'.repeat(64)}`, s: `0x${'0'.repeat(64)}`,
    })),
  });
  // the indexer's way: the status changes, journaled with the block (and the fill or cancel's transaction)
  for (const [n, [status, , , block]] of CASES.entries()) {
    if (block === null) continue;
    await app.db.sql.exec(
      `UPDATE orders SET status = '${status}' WHERE hash = '${hashOf(n)}';
       INSERT INTO order_status_changes (order_hash, old_status, new_status, block_number, tx_hash, log_index)
       VALUES ('${hashOf(n)}', 'VALID', '${status}', ${block}, ${status === 'EXECUTED' || status === 'CANCELLED' ? `'${txOf(n)}', 0` : 'NULL, NULL'});`,
    );
  }
  // a reorg undid the last journaled change of case 9: its event is retracted (the status stays, as the next batch re-derives it)
  await app.db.sql.exec(retractMarketEventsAboveSql(106));
  // the indexer's expiry row (src/chain/indexer/expiry-sql.ts) for case 11
  await app.db.sql.exec(
    `INSERT INTO market_events (type, cause, collection_address, token_id, order_hash, from_address, price, amount, old_status, new_status, block_number, created_at)
     SELECT 'STATUS_CHANGE', 'EXPIRED', o.collection_address, o.token_id, o.hash, o.signer, o.price, o.amount, o.status, 'EXPIRED', 109, to_timestamp(o.end_time + 1)
     FROM orders o WHERE o.hash = '${hashOf(11)}'`,
  );
  // the WETH the indexer last read of the two bid makers: case 7's maker holds 0.4 WETH, case 8's allows 0.1 WETH
  await app.db.prisma.currencyHolding.createMany({
    data: [
      { signer: signerOf(7), currency: net.weth, balance: String((4n * ETH) / 10n), allowance: String(2n * ETH), blockNumber: 110n },
      { signer: signerOf(8), currency: net.weth, balance: String(5n * ETH), allowance: String(ETH / 10n), blockNumber: 111n },
    ],
  });
});
afterAll(() => app?.close());

const FIELDS = 'fillable reason canReturn fix operator blockNumber txHash missing { currency needed balance allowance shortfall blockNumber }';
const PAGE = `{ orders(first: 50, sort: NEWEST) { edges { node { hash status fillability { ${FIELDS} } } } } }`;

describe(`Order.fillability in SQL (${backendName})`, () => {
  it('equals the resolver byte for byte, in one statement', async () => {
    const engine = await answerVia(app, PAGE, {}, true);
    expect(engine.text).toBe((await answerVia(app, PAGE, {}, false)).text);
    expect(engine.statements.filter((s) => s.includes(`'{"`))).toHaveLength(1);
    const aliased = `query($h: Hash!) { order(hash: $h) { f: fillability { __typename r: reason fillable ...F } } } fragment F on OrderFillability { txHash fix }`;
    const partly = `query($h: Hash!) { order(hash: $h) { fillability { reason m: missing { shortfall } missing { __typename needed ...M } } } } fragment M on CurrencyShortfall { shortfall atBlock: blockNumber }`;
    for (const n of [0, 3, 6, 7, 8]) {
      const e = await answerVia(app, partly, { h: hashOf(n) }, true);
      expect(e.text).toBe((await answerVia(app, partly, { h: hashOf(n) }, false)).text);
    }
    for (const n of [0, 3, 6]) {
      const e = await answerVia(app, aliased, { h: hashOf(n) }, true);
      expect(e.text).toBe((await answerVia(app, aliased, { h: hashOf(n) }, false)).text);
    }
  });

  it('says why, whether it can come back, what fixes it and which event caused it', async () => {
    const { text } = await answerVia(app, PAGE, {}, true);
    const by = new Map<string, any>(JSON.parse(text.slice(4)).data.orders.edges.map((e: any) => [e.node.hash, e.node.fillability]));
    const net = app.services.deps.network;
    expect(by.get(hashOf(0))).toEqual({ fillable: true, reason: null, canReturn: null, fix: null, operator: null, blockNumber: null, txHash: null, missing: null });
    expect(by.get(hashOf(1))).toMatchObject({ fillable: false, reason: 'NOT_STARTED', canReturn: true, fix: REASON_FIXES.NOT_STARTED, blockNumber: null });
    expect(by.get(hashOf(2))).toMatchObject({ reason: 'EXPIRED', canReturn: false, fix: null });
    expect(by.get(hashOf(3))).toMatchObject({ reason: 'EXECUTED', canReturn: false, blockNumber: '101', txHash: txOf(3) });
    expect(by.get(hashOf(4))).toMatchObject({ reason: 'CANCELLED', canReturn: false, blockNumber: '102', txHash: txOf(4) });
    expect(by.get(hashOf(5))).toMatchObject({ reason: 'INVALID_OWNER', canReturn: true, blockNumber: '103', txHash: null });
    expect(by.get(hashOf(6))).toMatchObject({ reason: 'ERC_APPROVAL', canReturn: true, operator: transferManagerFor(net, 'ERC721') || null, blockNumber: '104' });
    expect(by.get(hashOf(8))).toMatchObject({ reason: 'ERC20_APPROVAL', operator: net.exchange || null, blockNumber: '106' });
    expect(by.get(hashOf(9))).toMatchObject({ reason: 'ERC_APPROVAL', operator: transferManagerFor(net, 'ERC1155') || null, blockNumber: null });
    expect(by.get(hashOf(10))).toMatchObject({ reason: 'EXPIRED', canReturn: false, blockNumber: null });
    expect(by.get(hashOf(11))).toMatchObject({ reason: 'EXPIRED', canReturn: false, blockNumber: '109', txHash: null, missing: null });
  });

  it('says how much WETH a bid lacks, by the last read of its maker', async () => {
    const { text } = await answerVia(app, PAGE, {}, true);
    const by = new Map<string, any>(JSON.parse(text.slice(4)).data.orders.edges.map((e: any) => [e.node.hash, e.node.fillability]));
    const weth = app.services.deps.network.weth;
    const price = (n: number) => ETH + BigInt(n);
    expect(by.get(hashOf(7)).missing).toEqual({
      currency: weth, needed: String(price(7)), balance: String((4n * ETH) / 10n), allowance: String(2n * ETH),
      shortfall: String(price(7) - (4n * ETH) / 10n), blockNumber: '110',
    });
    expect(by.get(hashOf(8)).missing).toEqual({
      currency: weth, needed: String(price(8)), balance: String(5n * ETH), allowance: String(ETH / 10n),
      shortfall: String(price(8) - ETH / 10n), blockNumber: '111',
    });
    // the same maker's other orders: no WETH reason, nothing missing
    for (const n of [0, 3, 5, 6]) expect(by.get(hashOf(n)).missing).toBeNull();
  });
});
