// SQL literals for the indexer's write scripts. A batch is written as one multi-statement script
// (one simple-protocol call, hence one transaction on PostgreSQL and one uninterrupted call on
// PGlite), which cannot carry bind parameters. Every value is therefore checked for its shape
// before it is spelled into SQL: hex strings, integers, statuses and ISO timestamps only.
import { ORDER_STATUSES, type OrderStatusName } from '../domain/order-status.js';

const HEX = /^0x[0-9a-fA-F]*$/;

/** An address or hash (0x + hex digits), quoted. */
export function sqlHex(value: string): string {
  if (!HEX.test(value)) throw new Error(`not a hex string: ${JSON.stringify(value)}`);
  return `'${value}'`;
}

/** An integer of any size (NUMERIC(78,0), BIGINT, INTEGER columns). */
export function sqlInt(value: bigint | number): string {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return BigInt(value).toString();
}

export function sqlBool(value: boolean): string {
  return value ? 'true' : 'false';
}

export function sqlTime(value: Date): string {
  if (Number.isNaN(value.getTime())) throw new Error('invalid date');
  return `TIMESTAMPTZ '${value.toISOString()}'`;
}

export function sqlStatus(value: OrderStatusName): string {
  if (!ORDER_STATUSES.includes(value)) throw new Error(`not an order status: ${value}`);
  return `'${value}'::"OrderStatus"`;
}

/** A short identifier-like text (stream names). */
export function sqlName(value: string): string {
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(value)) throw new Error(`not a plain name: ${JSON.stringify(value)}`);
  return `'${value}'`;
}

export function sqlList(values: readonly string[]): string {
  return values.length ? values.join(', ') : 'NULL';
}

/** ES2024's String.prototype.isWellFormed / toWellFormed (Node 20+), not in the ES2023 lib. */
type WellFormed = { isWellFormed(): boolean; toWellFormed(): string };

/** jsonb refuses U+0000 (text cannot hold it) and a surrogate without its pair: both become U+FFFD. */
function storable(_key: string, v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const s = v as string & WellFormed;
  return s.isWellFormed() && !s.includes('\u0000') ? s : s.toWellFormed().replaceAll('\u0000', '\uFFFD');
}

/**
 * Any JSON value as a dollar-quoted jsonb literal. Dollar quoting takes the text as it is (no
 * escape sequences at all); the tag is chosen so that it does not occur in the text, so nothing
 * inside can end the literal. Used where the text comes from the internet (token metadata): a
 * string value holding what jsonb refuses (NUL, a lone surrogate, as a token URI or a cut error
 * message can) has it replaced by U+FFFD, so that no value can fail the statement carrying a batch.
 */
export function sqlJson(value: unknown): string {
  const text = JSON.stringify(value, storable);
  let tag = 'j';
  for (let i = 0; text.includes(`$${tag}$`); i++) tag = `j${i.toString(36)}`;
  return `$${tag}$${text}$${tag}$::jsonb`;
}
