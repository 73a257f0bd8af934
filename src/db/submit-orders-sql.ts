// The one call that stores accepted orders: submit_orders (migration
// 20261124090000_submit_orders_batch), many orders per round trip and per commit. Column-wise
// arrays, one per field, so the statement text and its plan are the same for any batch size.
import type { ParsedMakerOrderInput } from '../domain/maker-order-input.js';
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

/** Codes submit_orders answers besides OK: OrderProblemCodes, and COLLECTION_CHANGED. */
export type SubmitCode = 'OK' | 'NONCE_USED' | 'NONCE_TOO_LOW' | 'DUPLICATE_ORDER' | 'NONCE_CAP_REACHED' | 'COLLECTION_CHANGED';

export interface SubmitResult {
  code: SubmitCode;
  id: bigint | null;
  createdAt: Date | null;
  updatedAt: Date | null;
}

type Row = { ord: number; code: SubmitCode; id: string | null; created_at: Date | string | null; updated_at: Date | string | null };

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

const STATEMENT = `SELECT ord, code, id::text AS id, created_at, updated_at FROM submit_orders(
  $1::text[], $2::text[], $3::numeric[], $4::boolean[], $5::text[], $6::text[], $7::text[], $8::numeric[], $9::numeric[],
  $10::numeric[], $11::bigint[], $12::bigint[], $13::integer[], $14::text[], $15::jsonb[], $16::text[], $17::integer[],
  $18::text[], $19::text[], $20::bigint[], $21::text[], $22::text[], $23::text[], $24::text[], $25::boolean[], $26::integer)`;

/** Stores the orders under the nonce rules and the cap; one result per order, in order. */
export async function submitOrders(sql: SqlRunner, inserts: readonly OrderInsert[], maxPerNonce: number): Promise<SubmitResult[]> {
  const col = <T>(f: (x: OrderInsert) => T) => inserts.map(f);
  const rows = await sql.query<Row>(
    STATEMENT,
    [
      col((x) => x.hash),
      col((x) => x.order.collection),
      col((x) => (x.order.tokenId === null ? null : x.order.tokenId.toString())),
      col((x) => x.order.isOrderAsk),
      col((x) => x.order.signer),
      col((x) => x.order.strategy),
      col((x) => x.order.currency),
      col((x) => x.order.amount.toString()),
      col((x) => x.order.price.toString()),
      col((x) => x.order.nonce.toString()),
      col((x) => x.order.startTime.toString()),
      col((x) => x.order.endTime.toString()),
      col((x) => Number(x.order.minPercentageToAsk)),
      col((x) => x.order.encodedParams),
      col((x) => x.paramsJson),
      col((x) => x.sig.signature),
      col((x) => x.sig.v),
      col((x) => x.sig.r),
      col((x) => x.sig.s),
      col((x) => x.checkedBlock),
      col((x) => x.collectionType),
      col((x) => (x.discovered ? (x.discovered.owner ?? ZERO_ADDRESS) : null)),
      col((x) => x.discovered?.name ?? null),
      col((x) => x.discovered?.symbol ?? null),
      col((x) => x.discovered !== null),
      maxPerNonce,
    ],
    'submit_orders',
  );
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
export async function submitOrdersIsolated(sql: SqlRunner, inserts: readonly OrderInsert[], maxPerNonce: number): Promise<(SubmitResult | Error)[]> {
  try {
    return await submitOrders(sql, inserts, maxPerNonce);
  } catch (err) {
    if (inserts.length === 1) return [asDuplicate(err)];
    return Promise.all(inserts.map((x) => submitOrders(sql, [x], maxPerNonce).then((r) => r[0]!, asDuplicate)));
  }
}

const asDuplicate = (err: unknown): SubmitResult | Error =>
  (err as { code?: string }).code === '23505' ? { code: 'DUPLICATE_ORDER', id: null, createdAt: null, updatedAt: null } : (err as Error);
