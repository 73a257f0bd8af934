// The indexer cursor's row as indexerStatus reads it, shared by the service (./indexer-status.ts)
// and the read engine (src/read-engine/indexer-status-reads.ts).

/** The indexer cursor's latest row for the chain id `chainIdSql` (none before the first batch); the read engine reads the same row. */
export const indexerCursorRowSql = (chainIdSql: string) =>
  `SELECT block_number::text AS block_number, block_timestamp::text AS block_timestamp, last_event_block::text AS last_event_block,
          last_event_timestamp::text AS last_event_timestamp, floor(extract(epoch FROM updated_at))::text AS updated_at
     FROM indexer_cursor WHERE chain_id = ${chainIdSql} ORDER BY block_number DESC LIMIT 1`;
