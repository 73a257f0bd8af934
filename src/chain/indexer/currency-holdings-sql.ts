// What the indexer read of bid makers' WETH, kept per (signer, currency) with the block of the
// read, so Order.fillability can say how much an ERC20_BALANCE or ERC20_APPROVAL bid is missing
// (src/read-engine/fillability-reads.ts). Written by the script that writes the statuses derived
// from the same reads (batch-pipeline.ts, turns.ts); a reorg deletes the reads above its fork
// (undo-script.ts), and the next read of the signer writes them again.
import type { ChainFacts } from '../../domain/order-status-changes.js';
import { sqlHex, sqlInt } from '../../db/sql-literals.js';
import type { LiveOrder } from './order-facts.js';

export interface CurrencyHolding {
  signer: string;
  balance: bigint;
  allowance: bigint;
}

/** One read per bid maker among `orders` (order-facts.ts reads a signer's WETH once for all its bids). */
export function currencyHoldingsOf(orders: readonly LiveOrder[], facts: ReadonlyMap<string, ChainFacts>): CurrencyHolding[] {
  const bySigner = new Map<string, CurrencyHolding>();
  for (const o of orders) {
    const f = facts.get(o.hash);
    if (o.isOrderAsk || !f || f.wethBalance === undefined || f.wethAllowance === undefined) continue;
    bySigner.set(o.signer, { signer: o.signer, balance: f.wethBalance, allowance: f.wethAllowance });
  }
  return [...bySigner.values()];
}

/**
 * Stores `reads` of `currency` made at `block`; a row read at a later block stays (a settle pass
 * at the cursor block may run after a batch that read further).
 */
export function recordCurrencyHoldingsSql(reads: readonly CurrencyHolding[], currency: string, block: number): string | null {
  if (!reads.length) return null;
  const rows = reads.map((r) => `(${sqlHex(r.signer)}, ${sqlHex(currency)}, ${sqlInt(r.balance)}, ${sqlInt(r.allowance)}, ${sqlInt(block)})`);
  return `INSERT INTO currency_holdings (signer, currency, balance, allowance, block_number) VALUES ${rows.join(', ')}
ON CONFLICT (signer, currency) DO UPDATE SET balance = EXCLUDED.balance, allowance = EXCLUDED.allowance, block_number = EXCLUDED.block_number
WHERE currency_holdings.block_number <= EXCLUDED.block_number`;
}

/** The reads of blocks a reorg replaced: gone with them. */
export function forgetCurrencyHoldingsAboveSql(fork: number): string {
  return `DELETE FROM currency_holdings WHERE block_number > ${sqlInt(fork)}`;
}
