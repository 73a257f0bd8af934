// Which live orders a batch's events may have changed, so only those are re-read from the chain:
// asks on a transferred token by its sender or receiver, asks of an owner whose approval of the
// transfer manager changed, and bids of accounts whose WETH balance or allowance to the exchange
// moved. Events about accounts without orders select nothing (the "signers it has orders from"
// filter happens here, after decoding).
import type { SqlRunner } from '../../db/sql-runner.js';
import { ZERO_ADDRESS } from '../../domain/address.js';
import type { Network } from '../../domain/networks.js';
import { TERMINAL_STATUSES, type OrderStatusName } from '../../domain/order-status.js';
import type { ChainEvent } from './events.js';
import { transferManagerFor, type LiveOrder } from './order-facts.js';

export interface AffectedKeys {
  /** (collection, tokenId, signer) of asks whose ownership may have changed */
  tokens: { collection: string; tokenId: bigint; signer: string }[];
  /** (collection, signer) of asks whose approval may have changed */
  approvals: { collection: string; signer: string }[];
  /** signers of bids whose WETH balance or allowance may have changed */
  bidders: string[];
}

export function affectedKeys(events: readonly ChainEvent[], network: Network, collections: ReadonlyMap<string, 'ERC721' | 'ERC1155'>): AffectedKeys {
  const tokens = new Map<string, AffectedKeys['tokens'][number]>();
  const approvals = new Map<string, AffectedKeys['approvals'][number]>();
  const bidders = new Set<string>();
  for (const e of events) {
    switch (e.kind) {
      case 'Transfer':
      case 'TransferSingle':
      case 'TransferBatch':
        for (const signer of [e.from, e.to]) {
          if (signer === ZERO_ADDRESS) continue;
          for (const tokenId of e.ids) tokens.set(`${e.collection}|${tokenId}|${signer}`, { collection: e.collection, tokenId, signer });
        }
        break;
      case 'ApprovalForAll': {
        const type = collections.get(e.collection);
        // approving any other operator changes nothing the exchange relies on
        if (type && e.operator === transferManagerFor(network, type)) approvals.set(`${e.collection}|${e.owner}`, { collection: e.collection, signer: e.owner });
        break;
      }
      case 'WETHApproval':
        if (e.spender === network.exchange) for (const a of e.accounts) bidders.add(a);
        break;
      case 'WETHTransfer':
      case 'Deposit':
      case 'Withdrawal':
        for (const a of e.accounts) if (a !== ZERO_ADDRESS) bidders.add(a);
        break;
      default:
        break;
    }
  }
  return { tokens: [...tokens.values()], approvals: [...approvals.values()], bidders: [...bidders] };
}

/** An order row as LIVE_ORDER_COLUMNS reads it (also the unsettled-order scan, unsettled-orders.ts). */
export type LiveOrderRow = {
  hash: string;
  collection_address: string;
  ctype: 'ERC721' | 'ERC1155';
  token_id: string | null;
  is_order_ask: boolean;
  signer: string;
  nonce: string;
  amount: string;
  price: string;
  end_time: string;
  status: OrderStatusName;
};

export const LIVE_ORDER_COLUMNS = `o.hash, o.collection_address, c.type::text AS ctype, o.token_id::text AS token_id, o.is_order_ask, o.signer,
  o.nonce::text AS nonce, o.amount::text AS amount, o.price::text AS price, o.end_time::text AS end_time, o.status::text AS status`;
// Orders a fill or cancel already ended, and orders past their endTime on the market clock, read
// the same whatever the chain does next (src/domain/order-status.ts): no chain reads for them.
const LIVE = `o.status::text <> ALL($7::text[]) AND o.end_time >= $8::bigint`;

/** The orders `keys` may have changed that can still show a live status at `nowSeconds` (market clock). */
export async function findAffectedOrders(sql: SqlRunner, keys: AffectedKeys, nowSeconds: bigint): Promise<LiveOrder[]> {
  if (!keys.tokens.length && !keys.approvals.length && !keys.bidders.length) return [];
  const rows = await sql.query<LiveOrderRow>(
    `SELECT ${LIVE_ORDER_COLUMNS} FROM orders o JOIN collections c ON c.address = o.collection_address
       JOIN unnest($1::text[], $2::numeric[], $3::text[]) k(c, t, s) ON o.collection_address = k.c AND o.token_id = k.t AND o.signer = k.s
     WHERE o.is_order_ask AND ${LIVE}
     UNION
     SELECT ${LIVE_ORDER_COLUMNS} FROM orders o JOIN collections c ON c.address = o.collection_address
       JOIN unnest($4::text[], $5::text[]) k(c, s) ON o.collection_address = k.c AND o.signer = k.s
     WHERE o.is_order_ask AND ${LIVE}
     UNION
     SELECT ${LIVE_ORDER_COLUMNS} FROM orders o JOIN collections c ON c.address = o.collection_address
     WHERE NOT o.is_order_ask AND o.signer = ANY($6::text[]) AND ${LIVE}`,
    [
      keys.tokens.map((k) => k.collection),
      keys.tokens.map((k) => k.tokenId.toString()),
      keys.tokens.map((k) => k.signer),
      keys.approvals.map((k) => k.collection),
      keys.approvals.map((k) => k.signer),
      keys.bidders,
      TERMINAL_STATUSES,
      nowSeconds.toString(),
    ],
  );
  return rows.map(toLiveOrder);
}

export function toLiveOrder(r: LiveOrderRow): LiveOrder {
  return {
    hash: r.hash,
    collection: r.collection_address,
    collectionType: r.ctype,
    tokenId: r.token_id === null ? null : BigInt(r.token_id),
    isOrderAsk: r.is_order_ask,
    signer: r.signer,
    nonce: BigInt(r.nonce),
    amount: BigInt(r.amount),
    price: BigInt(r.price),
    endTime: BigInt(r.end_time),
    status: r.status,
  };
}
