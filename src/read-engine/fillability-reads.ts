// Order.fillability in SQL (the resolver it stands for: src/schema/order-fillability.ts): the
// reason by the same rule as the status leaf plus NOT_STARTED, the fixes and the final reasons
// written into the statement from src/domain/order-fillability.ts, the operator from the network,
// the block and transaction of the latest event that set the order's status
// (src/services/order-fillability.ts STATUS_EVENTS_SQL reads the same row), and for a bid short of
// WETH the indexer's last read of its maker (CURRENCY_HOLDINGS_SQL there).
// Written against ./read-type.ts only: the declarations (./read-types.ts) and the planner import it.
import { CURRENCY_REASONS, EVENT_REASONS, FINAL_REASONS, REASON_FIXES, UNFILLABLE_REASONS } from '../domain/order-fillability.js';
import { jsonLiteral, jsonString } from './json-sql.js';
import { objectFieldsSql } from './object-fields.js';
import { shownStatusSql } from './status-sql.js';
import type { FieldRead } from './read-type.js';

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');
const literalOrNull = (v: string | null) => (v ? jsonLiteral(v) : `'null'`);

/** Order.fillability over the orders alias `t` (the plan's network names the operators). */
export const ORDER_FILLABILITY: FieldRead<'hash' | 'status' | 'startTime' | 'endTime' | 'collectionAddress' | 'signer' | 'currencyAddress' | 'price'> = {
    kind: 'planned',
    columns: ['hash', 'status', 'startTime', 'endTime', 'collectionAddress', 'signer', 'currencyAddress', 'price'],
    plan: (p, nodes, _args, t) => {
      const network = p.operators;
      const now = p.nowSql();
      // the status a client sees, NOT_STARTED when it is VALID before startTime; none when fillable
      const shown = shownStatusSql(t, now);
      const reason = `NULLIF(CASE WHEN ${shown} = 'VALID' AND ${t}.start_time > ${now} THEN 'NOT_STARTED' ELSE ${shown} END, 'VALID')`;
      const event = (column: string) =>
        `CASE WHEN f.reason IN (${list(EVENT_REASONS)}) THEN COALESCE((SELECT to_json(m.${column})::text FROM market_events m ` +
        `WHERE m.order_hash = ${t}.hash AND m.new_status::text = f.reason AND m.type <> 'RETRACTED' AND NOT EXISTS (SELECT 1 FROM market_events r WHERE r.retracts_id = m.id) ` +
        `ORDER BY m.id DESC LIMIT 1), 'null') ELSE 'null' END`;
      const transferManager =
        `COALESCE((SELECT CASE c.type WHEN 'ERC721' THEN ${literalOrNull(network.transferManagerERC721)} ELSE ${literalOrNull(network.transferManagerERC1155)} END ` +
        `FROM collections c WHERE c.address = ${t}.collection_address), 'null')`;
      // the shortfall by the reason's figure: the balance (ERC20_BALANCE) or the allowance (currencyShortfall)
      const missing = (fieldNodes: Parameters<typeof objectFieldsSql>[1]) =>
        `CASE WHEN f.reason IN (${list(CURRENCY_REASONS)}) THEN COALESCE((SELECT ` +
        objectFieldsSql(p, fieldNodes, 'CurrencyShortfall', {
          currency: jsonString(`${t}.currency_address`),
          needed: jsonString(`${t}.price::text`),
          balance: jsonString('h.balance::text'),
          allowance: jsonString('h.allowance::text'),
          shortfall: jsonString(`GREATEST(${t}.price - CASE f.reason WHEN 'ERC20_BALANCE' THEN h.balance ELSE h.allowance END, 0)::text`),
          blockNumber: jsonString('h.block_number::text'),
        }) +
        ` FROM currency_holdings h WHERE h.signer = ${t}.signer AND h.currency = ${t}.currency_address), 'null') ELSE 'null' END`;
      const json = objectFieldsSql(p, nodes, 'OrderFillability', {
        fillable: `CASE WHEN f.reason IS NULL THEN 'true' ELSE 'false' END`,
        reason: `COALESCE(to_json(f.reason)::text, 'null')`,
        canReturn: `CASE WHEN f.reason IS NULL THEN 'null' WHEN f.reason IN (${list(FINAL_REASONS)}) THEN 'false' ELSE 'true' END`,
        fix: `CASE f.reason ${UNFILLABLE_REASONS.map((r) => `WHEN '${r}' THEN ${literalOrNull(REASON_FIXES[r])}`).join(' ')} ELSE 'null' END`,
        operator: `CASE f.reason WHEN 'ERC_APPROVAL' THEN ${transferManager} WHEN 'ERC20_APPROVAL' THEN ${literalOrNull(network.exchange)} ELSE 'null' END`,
        blockNumber: event('block_number::text'),
        txHash: event('tx_hash'),
        missing,
      });
      return `(SELECT ${json} FROM (SELECT ${reason} AS reason) f)`;
    },
};
