// Garbage collection of media: what nothing names any more is deleted once it has gone unnamed
// for the grace period (MEDIA_GC_GRACE_HOURS), so a logo replaced by mistake, an upload not yet
// given to a collection or a token image during a reveal are still there when asked for again.
//
// Named: a source URL is named when a collection's logo or banner or a token's metadata image is
// that exact string; a media is in use while a source row points at it or a collection's logo or
// banner is one of our own media URLs naming it. Each pass first stamps what is named now
// (last_referenced_at), then deletes, in separate statements that are each atomic, so a pass
// interrupted anywhere leaves nothing half done:
// 1. sources unnamed for the grace period (and not leased) go;
// 2. media that no source points at and that went unnamed for the grace period go, their
//    variants with them (ON DELETE CASCADE).
// A source or media named again meanwhile is stamped by whoever names it (an enqueue, a store),
// and a delete racing such a write loses: the stamp it re-checks is fresh, or the foreign key
// from media_sources refuses the delete and the next pass tries again.
import type { SqlRunner } from '../../db/sql-runner.js';

export interface MediaGcResult {
  sourcesDeleted: number;
  mediaDeleted: number;
}

const STAMP_SQL = `
WITH named AS (
  SELECT s.url_sha256, s.sha256 FROM media_sources s JOIN collections c ON s.url = c.logo_uri OR s.url = c.banner_uri
  UNION
  SELECT s.url_sha256, s.sha256 FROM media_sources s JOIN token_metadata t ON t.image = s.url),
sources AS (
  UPDATE media_sources SET last_referenced_at = now() WHERE url_sha256 IN (SELECT url_sha256 FROM named) RETURNING 1),
own AS (
  SELECT substring(x.u FROM '/media/([0-9a-f]{64})/') AS sha256
  FROM collections c CROSS JOIN LATERAL (VALUES (c.logo_uri), (c.banner_uri)) AS x(u) WHERE x.u LIKE '%/media/%'),
media_named AS (
  UPDATE media SET last_referenced_at = now()
  WHERE sha256 IN (SELECT sha256 FROM named WHERE sha256 IS NOT NULL UNION SELECT sha256 FROM own WHERE sha256 IS NOT NULL) RETURNING 1)
SELECT (SELECT count(*) FROM sources)::int AS sources, (SELECT count(*) FROM media_named)::int AS media`;

const DELETE_SOURCES_SQL = `
DELETE FROM media_sources
WHERE last_referenced_at < now() - make_interval(secs => $1::float8 / 1000) AND (lease_owner IS NULL OR lease_expires_at < now())
RETURNING 1`;

const DELETE_MEDIA_SQL = `
DELETE FROM media m
WHERE m.last_referenced_at < now() - make_interval(secs => $1::float8 / 1000)
  AND NOT EXISTS (SELECT 1 FROM media_sources s WHERE s.sha256 = m.sha256)
RETURNING 1`;

export async function collectMediaGarbage(sql: SqlRunner, graceMs: number): Promise<MediaGcResult> {
  await sql.query(STAMP_SQL);
  const sources = await sql.query(DELETE_SOURCES_SQL, [graceMs]);
  const media = await sql.query(DELETE_MEDIA_SQL, [graceMs]);
  return { sourcesDeleted: sources.length, mediaDeleted: media.length };
}
