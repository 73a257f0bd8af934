// The media queue over media_sources (migration 20261208000000_media), with the metadata queue's
// discipline (../metadata-queue.ts): a source is due while due_at is set and past; a claim is one
// statement that takes due rows FOR UPDATE SKIP LOCKED and writes a lease on them, so several
// instances never fetch one URL at once, and a killed instance's lease runs out and another takes
// the source over. An outcome is written only while its writer still holds the lease.
//
// A source is keyed by the SHA-256 of its URL's text, computed alike here and in SQL
// (encode(sha256(convert_to(url, 'UTF8')), 'hex')), so a query can join media_sources to the
// column that names the URL (collections.logo_uri, token_metadata.image) without an index on text
// that can be megabytes long (a data: URI).
import { urlSha256Sql } from '../hosted-media-sql.js';
import { createHash } from 'node:crypto';
import type { SqlRunner } from '../../db/sql-runner.js';

export type MediaSourceStatus = 'PENDING' | 'STORED' | 'REFUSED';

export interface ClaimedSource {
  urlSha256: string;
  url: string;
  /** every variant wanted at once (a logo, a banner) */
  eager: boolean;
  attempts: number;
  /** STORED: the source is stored already, only variants are missing (it became a logo) */
  status: MediaSourceStatus;
  sha256: string | null;
}

export interface SourceState {
  url: string;
  status: MediaSourceStatus;
  /** the media last stored from the URL (kept while it is fetched again) */
  sha256: string | null;
  errorCode: string | null;
  errorMessage: string | null;
}

/** What a failed attempt leaves: tried again at retryAt, or final (REFUSED; STORED for a stored source whose variants failed). */
export interface SourceFailure {
  status: MediaSourceStatus;
  errorCode: string;
  errorMessage: string;
  retryAt: Date | null;
}

export const urlSha256 = (url: string) => createHash('sha256').update(url, 'utf8').digest('hex');

// the one rule for a URL's key (src/services/hosted-media-sql.ts), shared with the reads that join it
const URL_SHA256_SQL = urlSha256Sql;

/** PostgreSQL text cannot hold U+0000: such a "URL" names nothing we could fetch either. */
const storable = (url: string) => url.trim() !== '' && !url.includes('\u0000');

export function createMediaQueue(sql: SqlRunner) {
  /**
   * Queues URLs (due now unless known). A URL already known is only marked as named again, and
   * becomes eager if asked so (a stored token image that becomes a logo gets its other variants);
   * `refresh` fetches it again (an http image that changed), the stored image served meanwhile.
   */
  async function enqueue(urls: readonly string[], opts: { eager: boolean; refresh?: boolean }): Promise<void> {
    const list = [...new Set(urls.filter(storable))];
    if (list.length === 0) return;
    await sql.query(
      `INSERT INTO media_sources AS s (url_sha256, url, eager, due_at)
       SELECT ${URL_SHA256_SQL('u')}, u, $2::boolean, now() FROM unnest($1::text[]) AS u
       ON CONFLICT (url_sha256) DO UPDATE SET
         eager = s.eager OR EXCLUDED.eager,
         last_referenced_at = now(),
         status = CASE WHEN $3::boolean THEN 'PENDING' ELSE s.status END,
         attempts = CASE WHEN $3::boolean THEN 0 ELSE s.attempts END,
         due_at = CASE
           WHEN $3::boolean THEN now()
           WHEN EXCLUDED.eager AND NOT s.eager AND s.status = 'STORED' THEN now()
           ELSE s.due_at END,
         updated_at = now()`,
      [list, opts.eager, opts.refresh ?? false],
    );
  }

  /**
   * The logos and banners of collections that are not yet sources (nor our own media URLs),
   * queued eager; a source that is already known becomes eager. Collections are few: one pass reads them all.
   */
  async function discoverCollectionImages(baseUrl: string | undefined): Promise<number> {
    const rows = await sql.query(
      `INSERT INTO media_sources AS s (url_sha256, url, eager, due_at)
       SELECT DISTINCT ${URL_SHA256_SQL('x.u')}, x.u, true, now()
       FROM collections c CROSS JOIN LATERAL (VALUES (c.logo_uri), (c.banner_uri)) AS x(u)
       WHERE btrim(x.u) <> ''
         AND NOT starts_with(x.u, '/media/') AND NOT ($1::text IS NOT NULL AND starts_with(x.u, $1::text || '/media/'))
       ON CONFLICT (url_sha256) DO UPDATE SET eager = true, last_referenced_at = now(), updated_at = now(),
         due_at = CASE WHEN s.status = 'STORED' THEN now() ELSE s.due_at END
       WHERE NOT s.eager
       RETURNING 1`,
      [baseUrl ?? null],
    );
    return rows.length;
  }

  /** Up to `limit` due sources leased to `owner` for `leaseMs`, the oldest due first, and sources whose lease ran out. */
  async function claim(owner: string, limit: number, leaseMs: number): Promise<ClaimedSource[]> {
    return sql.query<ClaimedSource>(
      `UPDATE media_sources s SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::float8 / 1000), due_at = NULL
       WHERE s.url_sha256 IN (
         SELECT q.url_sha256 FROM media_sources q
         WHERE q.due_at <= now() AND (q.lease_owner IS NULL OR q.lease_expires_at < now())
         ORDER BY q.due_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       OR s.url_sha256 IN (
         SELECT q.url_sha256 FROM media_sources q
         WHERE q.lease_owner IS NOT NULL AND q.lease_expires_at < now()
         ORDER BY q.lease_expires_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING s.url_sha256 AS "urlSha256", s.url, s.eager, s.attempts, s.status, s.sha256`,
      [owner, leaseMs, limit],
    );
  }

  /** A failed attempt, written if `owner` still holds the lease; answers whether it did. */
  async function fail(source: string, owner: string, f: SourceFailure): Promise<boolean> {
    const rows = await sql.query(
      `UPDATE media_sources SET status = $3, error_code = $4, error_message = $5, attempts = attempts + 1,
         due_at = COALESCE(due_at, $6::timestamptz), fetched_at = now(), updated_at = now(), lease_owner = NULL, lease_expires_at = NULL
       WHERE url_sha256 = $1 AND lease_owner = $2 RETURNING 1`,
      [source, owner, f.status, f.errorCode.slice(0, 32), f.errorMessage.slice(0, 1000), f.retryAt],
    );
    return rows.length > 0;
  }

  /** Where each URL stands (URLs never queued are absent from the map). */
  async function states(urls: readonly string[]): Promise<Map<string, SourceState>> {
    const list = [...new Set(urls.filter(storable))];
    if (list.length === 0) return new Map();
    const rows = await sql.query<SourceState>(
      `SELECT url, status, sha256, error_code AS "errorCode", error_message AS "errorMessage"
       FROM media_sources WHERE url_sha256 = ANY($1::text[])`,
      [list.map(urlSha256)],
    );
    return new Map(rows.map((r) => [r.url, r]));
  }

  /** Queue depth and the age of the oldest due source (metrics, /readyz). */
  async function depth(): Promise<{ due: number; oldestDueSeconds: number | null; leased: number }> {
    const [row] = await sql.query<{ due: number; oldest: number | null; leased: number }>(
      `SELECT (SELECT count(*) FROM media_sources WHERE due_at <= now())::int AS due,
         (SELECT extract(epoch FROM now() - min(due_at))::float8 FROM media_sources WHERE due_at <= now()) AS oldest,
         (SELECT count(*) FROM media_sources WHERE lease_owner IS NOT NULL AND lease_expires_at >= now())::int AS leased`,
    );
    return { due: row?.due ?? 0, oldestDueSeconds: row?.oldest ?? null, leased: row?.leased ?? 0 };
  }

  return { enqueue, discoverCollectionImages, claim, fail, states, depth };
}

export type MediaQueue = ReturnType<typeof createMediaQueue>;
