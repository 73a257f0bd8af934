// Oracles for the market event log, asked of the chain directly (the contracts' own event
// decoding, no indexer code): which transfers, sales and nonce kills the canonical chain holds,
// and what the log must then say. Each check returns a list of problems (empty when the log
// agrees), so a failing test prints every disagreement at once.
import type { Database } from '../../src/db/database.js';
import type { OrderStatusName } from '../../src/domain/order-status.js';
import type { StoredOrder, World } from './indexer-world.js';

export const ZERO = '0x0000000000000000000000000000000000000000';

/** A row of market_events, and whether a reorg retracted it. */
export interface LoggedEvent {
  id: number;
  type: string;
  cause: string | null;
  collection: string;
  tokenId: string | null;
  orderHash: string | null;
  from: string | null;
  to: string | null;
  price: string | null;
  amount: string | null;
  oldStatus: string | null;
  newStatus: string | null;
  block: number | null;
  txHash: string | null;
  logIndex: number | null;
  retractsId: number | null;
  retracted: boolean;
}

export async function readEventLog(db: Database): Promise<LoggedEvent[]> {
  const rows = await db.sql.query<Record<string, string | number | boolean | null>>(
    `SELECT e.id::text AS id, e.type::text AS type, e.cause::text AS cause, e.collection_address AS collection, e.token_id::text AS "tokenId",
            e.order_hash AS "orderHash", e.from_address AS "from", e.to_address AS "to", e.price::text AS price, e.amount::text AS amount,
            e.old_status::text AS "oldStatus", e.new_status::text AS "newStatus", e.block_number::text AS block, e.tx_hash AS "txHash",
            e.log_index AS "logIndex", e.retracts_id::text AS "retractsId",
            EXISTS (SELECT 1 FROM market_events r WHERE r.retracts_id = e.id) AS retracted
     FROM market_events e ORDER BY e.id`,
  );
  const num = (v: unknown) => (v === null ? null : Number(v));
  return rows.map((r) => ({ ...(r as unknown as LoggedEvent), id: Number(r.id), block: num(r.block), retractsId: num(r.retractsId), logIndex: num(r.logIndex) }));
}

/** The log as readers see it: no retractions, nothing a reorg retracted. */
export const liveEvents = (log: readonly LoggedEvent[]) => log.filter((e) => e.type !== 'RETRACTED' && !e.retracted);

interface LogPosition {
  block: number;
  logIndex: number;
  txHash: string;
}
export interface NftMove extends LogPosition {
  collection: string;
  tokenId: bigint;
  from: string;
  to: string;
  amount: bigint;
}
export interface ChainFill extends LogPosition {
  kind: 'TakerBid' | 'TakerAsk';
  orderHash: string;
  orderNonce: bigint;
  maker: string;
  taker: string;
  collection: string;
  tokenId: bigint;
  amount: bigint;
  price: bigint;
}
export interface NonceKill extends LogPosition {
  user: string;
  /** the order nonces it kills */
  kills(nonce: bigint): boolean;
  cause: 'NONCE_CANCELLED' | 'MIN_NONCE_RAISED' | 'NONCE_USED';
  /** NONCE_USED: the order whose fill used the nonce (that order itself is EXECUTED, not cancelled) */
  filledHash?: string;
}
export interface ChainFacts {
  /** NFT transfers of the two test collections, in chain order; a batch transfer is one move per id */
  moves: NftMove[];
  fills: ChainFill[];
  kills: NonceKill[];
}

type Args = Record<string, unknown> & unknown[];
interface EventLog {
  blockNumber: number;
  index: number;
  transactionHash: string;
  args: Args;
}

const byChainOrder = (a: LogPosition, b: LogPosition) => a.block - b.block || a.logIndex - b.logIndex;

/** Every transfer, fill and nonce kill of the canonical chain now. */
export async function readChainFacts(world: World): Promise<ChainFacts> {
  const { c } = world;
  const q = async (contract: { queryFilter(name: string): Promise<unknown[]> }, name: string) => (await contract.queryFilter(name)) as EventLog[];
  const pos = (l: EventLog): LogPosition => ({ block: l.blockNumber, logIndex: l.index, txHash: l.transactionHash.toLowerCase() });

  const moves: NftMove[] = [];
  for (const l of await q(c.erc721 as never, 'Transfer')) {
    moves.push({ ...pos(l), collection: c.addresses.erc721, from: String(l.args[0]), to: String(l.args[1]), tokenId: BigInt(l.args[2] as bigint), amount: 1n });
  }
  for (const l of await q(c.erc1155 as never, 'TransferSingle')) {
    moves.push({ ...pos(l), collection: c.addresses.erc1155, from: String(l.args[1]), to: String(l.args[2]), tokenId: BigInt(l.args[3] as bigint), amount: BigInt(l.args[4] as bigint) });
  }
  for (const l of await q(c.erc1155 as never, 'TransferBatch')) {
    const ids = l.args[3] as bigint[];
    const amounts = l.args[4] as bigint[];
    ids.forEach((id, i) => moves.push({ ...pos(l), collection: c.addresses.erc1155, from: String(l.args[1]), to: String(l.args[2]), tokenId: BigInt(id), amount: BigInt(amounts[i]!) }));
  }
  // stable: the ids of one batch transfer keep their order
  moves.sort(byChainOrder);

  const fills: ChainFill[] = [];
  for (const kind of ['TakerBid', 'TakerAsk'] as const) {
    for (const l of await q(c.exchange as never, kind)) {
      const a = l.args;
      fills.push({
        ...pos(l),
        kind,
        orderHash: String(a[0]).toLowerCase(),
        orderNonce: BigInt(a[1] as bigint),
        taker: String(a[2]),
        maker: String(a[3]),
        collection: String(a[6]),
        tokenId: BigInt(a[7] as bigint),
        amount: BigInt(a[8] as bigint),
        price: BigInt(a[9] as bigint),
      });
    }
  }
  fills.sort(byChainOrder);

  const kills: NonceKill[] = [];
  for (const l of await q(c.exchange as never, 'CancelMultipleOrders')) {
    const nonces = (l.args[1] as bigint[]).map(BigInt);
    kills.push({ ...pos(l), user: String(l.args[0]), cause: 'NONCE_CANCELLED', kills: (n) => nonces.includes(n) });
  }
  for (const l of await q(c.exchange as never, 'CancelAllOrders')) {
    const min = BigInt(l.args[1] as bigint);
    kills.push({ ...pos(l), user: String(l.args[0]), cause: 'MIN_NONCE_RAISED', kills: (n) => n < min });
  }
  for (const f of fills) kills.push({ ...f, user: f.maker, cause: 'NONCE_USED', filledHash: f.orderHash, kills: (n) => n === f.orderNonce });
  kills.sort(byChainOrder);
  return { moves, fills, kills };
}

/**
 * Transfers, mints and sales: the live log holds exactly the canonical chain's, once each, in
 * chain order, with their parties, token, amount and (sales) price and order.
 */
export function checkChainEvents(log: readonly LoggedEvent[], facts: ChainFacts): string[] {
  const key = (x: { type: string; txHash: string; logIndex: number; collection: string; tokenId: string; from: string; to: string; amount: string; price?: string; orderHash?: string }) =>
    [x.type, x.txHash, x.logIndex, x.collection, x.tokenId, x.from, x.to, x.amount, x.price ?? '', x.orderHash ?? ''].join(' ');
  const expected = [
    ...facts.moves.map((m) => ({ pos: m, key: key({ type: m.from === ZERO ? 'MINT' : 'TRANSFER', txHash: m.txHash, logIndex: m.logIndex, collection: m.collection, tokenId: String(m.tokenId), from: m.from, to: m.to, amount: String(m.amount) }) })),
    ...facts.fills.map((f) => ({
      pos: f,
      key: key({
        type: 'SALE', txHash: f.txHash, logIndex: f.logIndex, collection: f.collection, tokenId: String(f.tokenId),
        // TakerBid: the maker sold to the taker; TakerAsk: the taker sold to the maker
        from: f.kind === 'TakerBid' ? f.maker : f.taker, to: f.kind === 'TakerBid' ? f.taker : f.maker,
        amount: String(f.amount), price: String(f.price), orderHash: f.orderHash,
      }),
    })),
  ]
    .sort((a, b) => byChainOrder(a.pos, b.pos))
    .map((x) => x.key);
  const actual = liveEvents(log)
    .filter((e) => e.type === 'TRANSFER' || e.type === 'MINT' || e.type === 'SALE')
    .map((e) => key({ type: e.type, txHash: e.txHash ?? '', logIndex: e.logIndex ?? -1, collection: e.collection, tokenId: e.tokenId ?? '', from: e.from ?? '', to: e.to ?? '', amount: e.amount ?? '', price: e.type === 'SALE' ? e.price ?? '' : undefined, orderHash: e.type === 'SALE' ? e.orderHash ?? '' : undefined }));
  return diffSequences(expected, actual);
}

/** Where two sequences part, and what one holds that the other lacks (at most a few lines each). */
function diffSequences(expected: readonly string[], actual: readonly string[]): string[] {
  if (expected.length === actual.length && expected.every((x, i) => x === actual[i])) return [];
  const out: string[] = [];
  const first = expected.findIndex((x, i) => x !== actual[i]);
  const at = first === -1 ? expected.length : first;
  out.push(`chain events: ${expected.length} on chain, ${actual.length} in the log; first difference at #${at}: chain "${expected[at] ?? '(end)'}", log "${actual[at] ?? '(end)'}"`);
  const count = (list: readonly string[]) => list.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
  const e = count(expected);
  const a = count(actual);
  for (const [k, n] of e) if ((a.get(k) ?? 0) < n) out.push(`missing from the log: ${k}`);
  for (const [k, n] of a) if ((e.get(k) ?? 0) < n) out.push(`in the log, not on chain (or twice): ${k}`);
  return out.slice(0, 12);
}

/** The live log's events of the chain (a block number) never go back in (block, log index); a status of a batch end has no log index and sorts after the block's logs. */
export function checkChainOrder(log: readonly LoggedEvent[]): string[] {
  const out: string[] = [];
  let prev: LoggedEvent | null = null;
  const li = (e: LoggedEvent) => e.logIndex ?? Number.MAX_SAFE_INTEGER;
  for (const e of liveEvents(log)) {
    if (e.block === null) continue;
    if (prev && (e.block < prev.block! || (e.block === prev.block && li(e) < li(prev)))) {
      out.push(`event ${e.id} (${e.type}, block ${e.block}, log ${e.logIndex}) after event ${prev.id} (${prev.type}, block ${prev.block}, log ${prev.logIndex})`);
    }
    prev = e;
  }
  return out.slice(0, 12);
}

/** The cause the log must give a move between two statuses that no exchange event made. */
function causeOf(oldStatus: string, newStatus: string): string | undefined {
  if (newStatus === 'VALID') {
    return ({ ERC_APPROVAL: 'APPROVAL_RESTORED', ERC20_BALANCE: 'ERC20_BALANCE_RESTORED', ERC20_APPROVAL: 'ERC20_ALLOWANCE_RESTORED', INVALID_OWNER: 'OWNER_RESTORED' } as Record<string, string>)[oldStatus];
  }
  return ({ ERC_APPROVAL: 'APPROVAL_REVOKED', ERC20_BALANCE: 'ERC20_BALANCE_LOW', ERC20_APPROVAL: 'ERC20_ALLOWANCE_REVOKED', INVALID_OWNER: 'OWNER_CHANGED' } as Record<string, string>)[newStatus];
}

export interface TrackedOrder extends StoredOrder {
  /** the status stored when the order was added (no event: the test wrote it) */
  initialStatus: OrderStatusName;
  /** the head when it was added: its initial status already reflects everything up to here */
  addedAtBlock: number;
  startTime: bigint;
}

/**
 * Each order's status events, in log order, replay its stored status: each starts from the
 * status the previous one left (no change lost or logged twice) and the last ends at the stored
 * status now; each names the right cause; a fill or a cancel names the canonical log that made
 * it (the fill of this order; the first log after the order was added that killed its nonce);
 * EXPIRED comes once, from VALID, at a block past the end time, and only a cancel follows it.
 * Orders still VALID after the indexed chain passed their end time have their EXPIRED.
 */
export function checkOrderEvents(
  log: readonly LoggedEvent[],
  facts: ChainFacts,
  orders: readonly TrackedOrder[],
  stored: ReadonlyMap<string, string>,
  blockTime: ReadonlyMap<number, number>,
  indexedTime: number,
): string[] {
  const out: string[] = [];
  const byOrder = new Map<string, LoggedEvent[]>();
  for (const e of liveEvents(log)) {
    if (!e.orderHash || !['STATUS_CHANGE', 'CANCEL_LIST', 'CANCEL_OFFER'].includes(e.type)) continue;
    byOrder.set(e.orderHash, [...(byOrder.get(e.orderHash) ?? []), e]);
  }
  for (const o of orders) {
    const events = byOrder.get(o.hash) ?? [];
    const say = (e: LoggedEvent, msg: string) => out.push(`${o.hash.slice(0, 10)} ${o.isOrderAsk ? 'ask' : 'bid'} event ${e.id} (${e.type} ${e.cause} ${e.oldStatus}->${e.newStatus} block ${e.block}): ${msg}`);
    let running: string = o.initialStatus;
    let expired = false;
    for (const e of events) {
      if (e.cause === 'EXPIRED') {
        if (expired) say(e, 'a second EXPIRED');
        if (running !== 'VALID' || e.oldStatus !== 'VALID' || e.newStatus !== 'EXPIRED' || e.type !== 'STATUS_CHANGE') say(e, `EXPIRED from ${running}`);
        const t = e.block === null ? undefined : blockTime.get(e.block);
        if (t === undefined || BigInt(t) <= o.endTime) say(e, `expired at a block of time ${t}, end time ${o.endTime}`);
        if (e.txHash !== null || e.logIndex !== null) say(e, 'an expiry names a transaction');
        expired = true;
        continue;
      }
      if (e.oldStatus !== running) say(e, `starts from ${e.oldStatus}, the order was ${running}`);
      if (e.newStatus === e.oldStatus) say(e, 'changes nothing');
      if (expired && e.newStatus !== 'CANCELLED') say(e, 'a change after the expiry');
      if (e.newStatus === 'CANCELLED') {
        if (e.type !== (o.isOrderAsk ? 'CANCEL_LIST' : 'CANCEL_OFFER')) say(e, 'a cancel of the wrong type');
        const killer = facts.kills.find((k) => k.block > o.addedAtBlock && k.user === o.signer && k.kills(o.nonce) && k.filledHash !== o.hash);
        if (!killer) say(e, 'no log on the canonical chain cancels it');
        else if (e.txHash !== killer.txHash || e.logIndex !== killer.logIndex || e.cause !== killer.cause || e.block !== killer.block) {
          say(e, `names ${e.txHash}:${e.logIndex} (${e.cause}), the chain's first kill is ${killer.txHash}:${killer.logIndex} (${killer.cause}) at block ${killer.block}`);
        }
      } else if (e.newStatus === 'EXECUTED') {
        const fill = facts.fills.find((f) => f.orderHash === o.hash);
        if (e.type !== 'STATUS_CHANGE' || e.cause !== 'EXECUTED') say(e, 'an execution of the wrong type or cause');
        if (!fill || e.txHash !== fill.txHash || e.logIndex !== fill.logIndex || e.block !== fill.block) say(e, `names ${e.txHash}:${e.logIndex}, the chain's fill is ${fill?.txHash}:${fill?.logIndex}`);
      } else {
        if (e.type !== 'STATUS_CHANGE' || e.cause !== causeOf(e.oldStatus ?? '', e.newStatus ?? '')) say(e, 'the wrong type or cause');
        if (e.txHash !== null || e.logIndex !== null || e.block === null) say(e, 'a status read from chain state names a transaction, or no block');
      }
      running = e.newStatus ?? running;
    }
    if (running !== stored.get(o.hash)) out.push(`${o.hash.slice(0, 10)}: its events end at ${running} (from ${o.initialStatus}), the order is ${stored.get(o.hash)}`);
    const mustExpire = stored.get(o.hash) === 'VALID' && o.endTime < BigInt(indexedTime) && o.startTime <= o.endTime;
    if (mustExpire && !expired) out.push(`${o.hash.slice(0, 10)}: VALID, ended at ${o.endTime} before the indexed time ${indexedTime}, no EXPIRED`);
  }
  return out.slice(0, 20);
}
