// The read engine's declaration and root planner for Query.indexerStatus (the resolver it stands
// for: src/schema/indexer-status.ts). Its row is the indexer cursor's latest row (the same SQL as
// the service's, src/services/indexer-status.ts) beside what only this process knows: the chain
// head, the settings and the indexer loop's state (IndexerStatusService.processView), bound as
// parameters. So a status asked beside other reads is the same statement, and its indexed block
// is read from the snapshot the other fields are.
// Written against ./read-type.ts only: the declarations (./read-types.ts) and the planner import it.
import type { FieldNode } from 'graphql';
import type { Context } from '../context.js';
import { indexerCursorRowSql } from '../services/indexer-cursor-sql.js';
import { jsonBoolean, jsonInt, jsonUnixTime } from './json-sql.js';
import type { FieldRead, Planner, ReadType } from './read-type.js';

type Column = 'chain_id' | 'head_block' | 'head_timestamp' | 'block_number' | 'block_timestamp' | 'confirmations' | 'last_event_block' | 'last_event_timestamp' | 'updated_at' | 'running' | 'holds_lease';

/** GraphQL Int: 32 bits, else graphql-js refuses the value (unrenderable: the resolver answers with its error). */
const int32 = (sql: string) => `CASE WHEN ${sql} BETWEEN -2147483648 AND 2147483647 THEN (${sql})::text END`;
const nullable = (sql: string, json: (s: string) => string) => `CASE WHEN ${sql} IS NULL THEN 'null' ELSE ${json(sql)} END`;
const leaf = (column: Column, json: (s: string) => string, nullableValue = true): FieldRead<Column> => ({
  kind: 'leaf',
  columns: [column],
  json: (t) => (nullableValue ? nullable(`${t}.${column}`, json) : json(`${t}.${column}`)),
});
/** max(0, a - b) of two nullable columns: null when either is */
const lag = (a: Column, b: Column): FieldRead<Column> => ({
  kind: 'leaf',
  columns: [a, b],
  json: (t) => `CASE WHEN ${t}.${a} IS NULL OR ${t}.${b} IS NULL THEN 'null' ELSE ${int32(`greatest(0, ${t}.${a} - ${t}.${b})`)} END`,
});

export const INDEXER_STATUS_TYPE: ReadType<Column> = {
  // one row, made by planIndexerStatus below
  table: 'indexer_cursor',
  fields: {
    chainId: leaf('chain_id', jsonInt, false),
    headBlock: leaf('head_block', int32),
    headTimestamp: leaf('head_timestamp', jsonUnixTime),
    indexedBlock: leaf('block_number', int32),
    indexedBlockTimestamp: leaf('block_timestamp', jsonUnixTime),
    confirmations: leaf('confirmations', jsonInt, false),
    lagBlocks: lag('head_block', 'block_number'),
    lagSeconds: lag('head_timestamp', 'block_timestamp'),
    lastEventBlock: leaf('last_event_block', int32),
    lastEventTimestamp: leaf('last_event_timestamp', jsonUnixTime),
    updatedAt: leaf('updated_at', jsonUnixTime),
    running: leaf('running', jsonBoolean, false),
    holdsLease: leaf('holds_lease', jsonBoolean, false),
  },
};

/** Query.indexerStatus: the cursor row (or none) and this process's view, as one JSON object. */
export async function planIndexerStatus(p: Planner, nodes: readonly FieldNode[], _args: Record<string, unknown>, ctx: Context): Promise<string> {
  // the process's view as it is now (the chain head, whether this instance holds the lease)
  p.markVolatile();
  const view = await ctx.services.indexer.processView();
  const chain = p.params.add(view.chainId, '::int');
  const c = p.alias('c');
  const t = p.alias('s');
  const row = `SELECT ${chain} AS chain_id, ${p.params.add(view.head?.number ?? null, '::bigint')} AS head_block,
       ${p.params.add(view.head?.timestamp ?? null, '::bigint')} AS head_timestamp, ${p.params.add(view.confirmations, '::int')} AS confirmations,
       ${p.params.add(view.running, '::boolean')} AS running, ${p.params.add(view.holdsLease, '::boolean')} AS holds_lease,
       ${c}.block_number::bigint AS block_number, ${c}.block_timestamp::bigint AS block_timestamp, ${c}.last_event_block::bigint AS last_event_block,
       ${c}.last_event_timestamp::bigint AS last_event_timestamp, ${c}.updated_at::bigint AS updated_at
  FROM (SELECT 1) one LEFT JOIN LATERAL (${indexerCursorRowSql(chain)}) ${c} ON true`;
  return `(SELECT ${p.object('IndexerStatus', nodes, t)} FROM (${row}) ${t})`;
}
