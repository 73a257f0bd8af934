// The metadata queue over token_metadata (migration 20261207210000_token_metadata): a token is due
// while due_at is set and past. A claim is one statement (FOR UPDATE SKIP LOCKED, then a lease
// written on the rows, due_at cleared), as the webhook sender claims endpoints: instances never
// read one token at once, and a dead instance's lease runs out so another takes the token over.
// Tokens enter the queue from the market event log (the first listing, offer, transfer, mint or
// sale naming them: discover), from refreshes clients ask for, and from chain events that say a
// token's metadata changed (EIP-4906, ERC-1155 URI).
import { ServiceError } from '../domain/errors.js';
import { storeMetadataScript, type MetadataWrite } from '../db/token-metadata-sql.js';
import type { ServiceDeps } from './deps.js';
import { VISIBILITY_HORIZON_SQL } from './market-event-log.js';

export interface ClaimedToken {
  collectionAddress: string;
  tokenId: string;
  type: 'ERC721' | 'ERC1155';
  attempts: number;
}

/** Events read per discovery pass. */
const DISCOVER_BATCH = 5000;

export interface RefreshAnswer {
  /** false: the cooldown had not run out; nothing was queued */
  queued: boolean;
  /** tokens queued (0 when refused) */
  tokens: number;
  /** the earliest time the next refresh of the same token or collection is accepted */
  nextRefreshAllowedAt: Date;
}

export function createMetadataQueue(deps: ServiceDeps) {
  const sql = deps.db.sql;
  const cfg = deps.config.metadata;

  /**
   * Tokens named by the log since the last pass get a row (due now) unless they have one: the
   * first time the index knows a token, its metadata is read. Follows the log in its reading
   * order (tx_id, id) below the visibility horizon, so a row committed late is still seen.
   */
  async function discover(): Promise<number> {
    const [row] = await sql.query<{ events: number }>(
      `WITH cur AS (SELECT tx_id, event_id FROM metadata_discovery_cursor WHERE id = 1 FOR UPDATE),
       batch AS (
         SELECT e.tx_id, e.id, e.collection_address, e.token_id FROM market_events e, cur
         WHERE (e.tx_id, e.id) > (cur.tx_id, cur.event_id) AND e.tx_id < ${VISIBILITY_HORIZON_SQL}
         ORDER BY e.tx_id, e.id LIMIT ${DISCOVER_BATCH}),
       added AS (
         INSERT INTO token_metadata (collection_address, token_id, due_at)
         SELECT DISTINCT b.collection_address, b.token_id, now() FROM batch b
         WHERE b.token_id IS NOT NULL AND EXISTS (SELECT 1 FROM collections c WHERE c.address = b.collection_address)
         ON CONFLICT DO NOTHING RETURNING 1),
       last AS (SELECT tx_id, id FROM batch ORDER BY tx_id DESC, id DESC LIMIT 1),
       moved AS (UPDATE metadata_discovery_cursor SET tx_id = last.tx_id, event_id = last.id FROM last WHERE metadata_discovery_cursor.id = 1 RETURNING 1)
       SELECT (SELECT count(*) FROM batch)::int AS events, (SELECT count(*) FROM added)::int AS added, (SELECT count(*) FROM moved)::int AS moved`,
    );
    return row?.events ?? 0;
  }

  /** Up to `limit` due tokens, leased to `owner` for `leaseMs`; the oldest due first. */
  async function claim(owner: string, limit: number, leaseMs: number): Promise<ClaimedToken[]> {
    return sql.query<ClaimedToken>(
      `UPDATE token_metadata m SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::float8 / 1000), due_at = NULL
       FROM collections c
       WHERE c.address = m.collection_address AND ((m.collection_address, m.token_id) IN (
         -- due tokens, the oldest first (token_metadata_due_idx)
         SELECT q.collection_address, q.token_id FROM token_metadata q
         WHERE q.due_at <= now() AND (q.lease_owner IS NULL OR q.lease_expires_at < now())
         ORDER BY q.due_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       OR (m.collection_address, m.token_id) IN (
         -- tokens a dead worker was reading (token_metadata_lease_idx)
         SELECT q.collection_address, q.token_id FROM token_metadata q
         WHERE q.lease_owner IS NOT NULL AND q.lease_expires_at < now()
         ORDER BY q.lease_expires_at LIMIT $3 FOR UPDATE SKIP LOCKED))
       RETURNING m.collection_address AS "collectionAddress", m.token_id::text AS "tokenId", c.type::text AS type, m.attempts`,
      [owner, leaseMs, limit],
    );
  }

  /** Writes outcomes (only the tokens `owner` still leases; null: an import, rows created as needed). */
  async function store(writes: readonly MetadataWrite[], owner: string | null): Promise<void> {
    if (writes.length === 0) return;
    await sql.exec(storeMetadataScript(writes, owner));
  }

  /** Queues tokens now (chain events); tokens without a row get one. */
  async function enqueue(collectionAddress: string, tokenIds: readonly string[]): Promise<void> {
    if (tokenIds.length === 0) return;
    await sql.query(
      `INSERT INTO token_metadata (collection_address, token_id, due_at) SELECT $1::varchar, t, now() FROM unnest($2::numeric[]) AS t
       ON CONFLICT (collection_address, token_id) DO UPDATE SET due_at = now()`,
      [collectionAddress, tokenIds],
    );
  }

  /** Queues every token of a collection with a row now (EIP-4906 BatchMetadataUpdate over a range). */
  async function enqueueRange(collectionAddress: string, from: string, to: string): Promise<number> {
    const rows = await sql.query(`UPDATE token_metadata SET due_at = now() WHERE collection_address = $1 AND token_id BETWEEN $2::numeric AND $3::numeric RETURNING 1`, [
      collectionAddress,
      from,
      to,
    ]);
    return rows.length;
  }

  /**
   * A client's refresh of one token: queued now unless one was asked for within the cooldown. A
   * token the index does not know is NOT_FOUND (refreshing cannot create tokens).
   */
  async function refreshToken(collectionAddress: string, tokenId: string): Promise<RefreshAnswer> {
    const cooldown = cfg.refreshCooldownMs;
    const [row] = await sql.query<{ queued: boolean; requested: Date; known: boolean; collection: boolean }>(
      `WITH known AS (
         SELECT 1 FROM token_metadata WHERE collection_address = $1 AND token_id = $2::numeric
         UNION ALL SELECT 1 FROM token_balances WHERE collection_address = $1 AND token_id = $2::numeric AND balance > 0
         UNION ALL (SELECT 1 FROM orders WHERE collection_address = $1 AND token_id = $2::numeric LIMIT 1) LIMIT 1),
       up AS (
         INSERT INTO token_metadata AS m (collection_address, token_id, due_at, refresh_requested_at)
         SELECT $1::varchar, $2::numeric, now(), now() FROM known
         ON CONFLICT (collection_address, token_id) DO UPDATE SET due_at = now(), refresh_requested_at = now()
           WHERE m.refresh_requested_at IS NULL OR m.refresh_requested_at <= now() - make_interval(secs => $3::float8 / 1000)
         RETURNING refresh_requested_at)
       SELECT (SELECT count(*) FROM up) > 0 AS queued,
         COALESCE((SELECT refresh_requested_at FROM up), (SELECT refresh_requested_at FROM token_metadata WHERE collection_address = $1 AND token_id = $2::numeric)) AS requested,
         (SELECT count(*) FROM known) > 0 AS known, EXISTS (SELECT 1 FROM collections WHERE address = $1) AS collection`,
      [collectionAddress, tokenId, cooldown],
    );
    if (!row?.collection) throw new ServiceError('NOT_FOUND', `no collection ${collectionAddress}`);
    if (!row.known) throw new ServiceError('NOT_FOUND', `the index knows no token ${tokenId} of ${collectionAddress}`);
    return { queued: row.queued, tokens: row.queued ? 1 : 0, nextRefreshAllowedAt: new Date(new Date(row.requested).getTime() + cooldown) };
  }

  /** A client's refresh of a whole collection: every token it knows, once per collection cooldown. */
  async function refreshCollection(collectionAddress: string): Promise<RefreshAnswer> {
    const cooldown = cfg.collectionRefreshCooldownMs;
    const [row] = await sql.query<{ queued: boolean; requested: Date; tokens: number }>(
      `WITH up AS (
         INSERT INTO collection_metadata AS k (collection_address, refresh_requested_at, contract_due_at)
         SELECT $1::varchar, now(), now() WHERE EXISTS (SELECT 1 FROM collections WHERE address = $1::varchar)
         -- the collection's own document (contractURI) is read again too
         ON CONFLICT (collection_address) DO UPDATE SET refresh_requested_at = now(), contract_due_at = now()
           WHERE k.refresh_requested_at IS NULL OR k.refresh_requested_at <= now() - make_interval(secs => $2::float8 / 1000)
         RETURNING refresh_requested_at),
       queued AS (UPDATE token_metadata SET due_at = now() WHERE collection_address = $1 AND EXISTS (SELECT 1 FROM up) RETURNING 1)
       SELECT (SELECT count(*) FROM up) > 0 AS queued, (SELECT count(*) FROM queued)::int AS tokens,
         COALESCE((SELECT refresh_requested_at FROM up), (SELECT refresh_requested_at FROM collection_metadata WHERE collection_address = $1)) AS requested`,
      [collectionAddress, cooldown],
    );
    if (!row?.requested) throw new ServiceError('NOT_FOUND', `no collection ${collectionAddress}`);
    return { queued: row.queued, tokens: row.tokens, nextRefreshAllowedAt: new Date(new Date(row.requested).getTime() + cooldown) };
  }

  /** Queue depth and the age of the oldest due token (metrics, /readyz). */
  async function depth(): Promise<{ due: number; oldestDueSeconds: number | null; leased: number }> {
    const [row] = await sql.query<{ due: number; oldest: number | null; leased: number }>(
      `SELECT (SELECT count(*) FROM token_metadata WHERE due_at <= now())::int AS due,
         (SELECT extract(epoch FROM now() - min(due_at))::float8 FROM token_metadata WHERE due_at <= now()) AS oldest,
         (SELECT count(*) FROM token_metadata WHERE lease_owner IS NOT NULL AND lease_expires_at >= now())::int AS leased`,
    );
    return { due: row?.due ?? 0, oldestDueSeconds: row?.oldest ?? null, leased: row?.leased ?? 0 };
  }

  return { discover, claim, store, enqueue, enqueueRange, refreshToken, refreshCollection, depth };
}

export type MetadataQueue = ReturnType<typeof createMetadataQueue>;
