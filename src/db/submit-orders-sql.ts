// The one call that stores accepted orders: submit_orders (src/db/sql/submit_orders.sql), many
// orders per round trip and per commit. The batch travels as one JSON array, so the statement
// text and its plan are the same for any batch size, and a new column is one key here, one in the
// SQL's column list and one in its INSERT. JSON cost PostgreSQL what the 26 column arrays it
// replaced did, and a third of the Node time an array of a composite type took to build
// (docs/architecture.md, "A submission").
import type { ParsedMakerOrderInput } from '../domain/maker-order-input.js';
import type { NonceProblemCode } from '../domain/nonce-rules.js';
import type { SqlRunner } from './sql-runner.js';

export interface OrderInsert {
  hash: string;
  order: ParsedMakerOrderInput;
  /** paramsToJson(order.params), stored as JSONB */
  paramsJson: string;
  sig: { signature: string; v: number; r: string; s: string };
  /** the block the chain checks read at; null without a chain */
  checkedBlock: number | null;
  /** the collection type the rules were checked with; the call refuses the order if it differs */
  collectionType: 'ERC721' | 'ERC1155';
  /** a collection found on chain, registered with the order */
  discovered: { owner: string | null; name: string | null; symbol: string | null } | null;
}

/** What submit_orders answers: OK, the first nonce rule broken, or COLLECTION_CHANGED. */
export type SubmitCode = 'OK' | NonceProblemCode | 'COLLECTION_CHANGED';

export interface SubmitResult {
  code: SubmitCode;
  id: bigint | null;
  createdAt: Date | null;
  updatedAt: Date | null;
}

type Row = { ord: number; code: SubmitCode; id: string | null; created_at: Date | string | null; updated_at: Date | string | null };

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

const STATEMENT = 'SELECT ord, code, id::text AS id, created_at, updated_at FROM submit_orders($1::jsonb)';

/** One order as submit_orders reads it: the keys of its column list. */
function orderJson(x: OrderInsert): string {
  const o = x.order;
  const d = x.discovered;
  const fields = JSON.stringify({
    hash: x.hash,
    collection: o.collection,
    token_id: o.tokenId === null ? null : o.tokenId.toString(),
    is_order_ask: o.isOrderAsk,
    signer: o.signer,
    strategy: o.strategy,
    currency: o.currency,
    amount: o.amount.toString(),
    price: o.price.toString(),
    nonce: o.nonce.toString(),
    start_time: o.startTime.toString(),
    end_time: o.endTime.toString(),
    min_percentage_to_ask: Number(o.minPercentageToAsk),
    params: o.encodedParams,
    signature: x.sig.signature,
    v: x.sig.v,
    r: x.sig.r,
    s: x.sig.s,
    chain_checked_block: x.checkedBlock,
    collection_type: x.collectionType,
    discovered: d !== null,
    discovered_owner: d ? (d.owner ?? ZERO_ADDRESS) : null,
    discovered_name: d?.name ?? null,
    discovered_symbol: d?.symbol ?? null,
  });
  // paramsJson is JSON already: spliced in rather than parsed to be printed again
  return `${fields.slice(0, -1)},"params_list":${x.paramsJson}}`;
}

/** Stores the orders under the nonce rules and the cap; one result per order, in order. */
export async function submitOrders(sql: SqlRunner, inserts: readonly OrderInsert[]): Promise<SubmitResult[]> {
  const rows = await sql.query<Row>(STATEMENT, [`[${inserts.map(orderJson).join(',')}]`], 'submit_orders');
  const results: SubmitResult[] = new Array(inserts.length);
  for (const r of rows) {
    results[r.ord - 1] = {
      code: r.code,
      id: r.id === null ? null : BigInt(r.id),
      createdAt: r.created_at === null ? null : new Date(r.created_at),
      updatedAt: r.updated_at === null ? null : new Date(r.updated_at),
    };
  }
  if (results.length !== inserts.length || results.includes(undefined as never)) throw new Error('submit_orders did not answer every order');
  return results;
}

/**
 * submitOrders, with a whole-call failure (an unexpected error: nothing was written) narrowed down:
 * each order is then tried alone, so only the one at fault fails. Two identical orders racing
 * cannot both pass the duplicate check (same signer and nonce, same lock), but the unique hash
 * index stays the last word: its violation is DUPLICATE_ORDER.
 */
export async function submitOrdersIsolated(sql: SqlRunner, inserts: readonly OrderInsert[]): Promise<(SubmitResult | Error)[]> {
  try {
    return await submitOrders(sql, inserts);
  } catch (err) {
    if (inserts.length === 1) return [asDuplicate(err)];
    return Promise.all(inserts.map((x) => submitOrders(sql, [x]).then((r) => r[0]!, asDuplicate)));
  }
}

const asDuplicate = (err: unknown): SubmitResult | Error =>
  (err as { code?: string }).code === '23505' ? { code: 'DUPLICATE_ORDER', id: null, createdAt: null, updatedAt: null } : (err as Error);
