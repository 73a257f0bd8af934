// The write of token metadata: documents, their traits and the collection's trait counts, as one
// script (one transaction), so that trait_values equals a recount of token_attributes at every
// commit (docs/metadata.md). Counts move by the difference between a token's old and new traits;
// a token whose document did not change (the same SHA-256, already OK) keeps its traits untouched.
// Writers take an advisory lock per collection, in address order, so two writers never wait on
// each other's count rows in a cycle.
import { urlSha256Sql } from '../services/hosted-media-sql.js';
import { sqlJson, sqlName } from './sql-literals.js';

export type MetadataStatusName = 'PENDING' | 'OK' | 'ERROR';

export interface StoredAttribute {
  traitType: string;
  value: string;
  displayType: string | null;
  kind: 'STRING' | 'NUMBER' | 'DATE';
  numberValue: number | null;
}

/** One token's outcome, as the worker (or an import) writes it. */
export interface MetadataWrite {
  collectionAddress: string;
  tokenId: string;
  status: MetadataStatusName;
  errorCode: string | null;
  errorMessage: string | null;
  tokenUri: string | null;
  /** OK only: the document, its hash and what was read from it */
  document?: { text: string; sha256: string; name: string | null; description: string | null; image: string | null; animationUrl: string | null; externalUrl: string | null; attributes: StoredAttribute[] };
  /** when it is read again on its own (a mutable URI), or null */
  nextFetchAt: Date | null;
  /** a failed read that is tried again at this time (then attempts grows), or null */
  retryAt: Date | null;
}

/** The advisory lock key space of metadata writers (hashtext of the collection is the second key). */
const LOCK_SPACE = 7_350_001;

/**
 * The script writing `writes`. With `leaseOwner`, only tokens this worker still leases are written
 * (a worker whose lease ran out and was taken over writes nothing); without, rows are created as
 * needed (imports, the demo). Every text arrives inside one jsonb literal (sqlJson).
 */
export function storeMetadataScript(writes: readonly MetadataWrite[], leaseOwner: string | null): string {
  // one row per token (ON CONFLICT cannot change a row twice in one statement): the last write wins
  const last = new Map(writes.map((w) => [`${w.collectionAddress}:${w.tokenId}`, w]));
  const rows = [...last.values()].map((w) => ({
    c: w.collectionAddress,
    t: w.tokenId,
    status: w.status,
    error_code: w.errorCode,
    error_message: w.errorMessage,
    token_uri: w.tokenUri,
    document: w.document?.text ?? null,
    sha: w.document?.sha256 ?? null,
    name: w.document?.name ?? null,
    description: w.document?.description ?? null,
    image: w.document?.image ?? null,
    animation_url: w.document?.animationUrl ?? null,
    external_url: w.document?.externalUrl ?? null,
    next_fetch_at: w.nextFetchAt?.toISOString() ?? null,
    retry_at: w.retryAt?.toISOString() ?? null,
    attrs: w.document
      ? w.document.attributes.map((a, i) => ({ trait_type: a.traitType, value: a.value, display_type: a.displayType, kind: a.kind, number_value: a.numberValue, position: i }))
      : null,
  }));
  const owner = leaseOwner === null ? null : sqlName(leaseOwner);
  return `
CREATE TEMP TABLE metadata_in ON COMMIT DROP AS
  SELECT x.*, false AS changed FROM jsonb_to_recordset(${sqlJson(rows)}) AS x(
    c varchar(42), t numeric(78,0), status "MetadataStatus", error_code text, error_message text, token_uri text, document text, sha text,
    name text, description text, image text, animation_url text, external_url text, next_fetch_at timestamptz, retry_at timestamptz, attrs jsonb);
SELECT pg_advisory_xact_lock(${LOCK_SPACE}, hashtext(s.c)) FROM (SELECT DISTINCT c FROM metadata_in ORDER BY c) s;
SELECT 1 FROM token_metadata m JOIN metadata_in i ON m.collection_address = i.c AND m.token_id = i.t FOR UPDATE OF m;
${owner === null ? '' : `DELETE FROM metadata_in i WHERE NOT EXISTS (SELECT 1 FROM token_metadata m WHERE m.collection_address = i.c AND m.token_id = i.t AND m.lease_owner = ${owner});`}
-- a failed read keeps the last good document and traits (the token still shows; status says it failed)
UPDATE metadata_in i SET changed = i.status = 'OK' AND NOT EXISTS (
  SELECT 1 FROM token_metadata m WHERE m.collection_address = i.c AND m.token_id = i.t AND m.status = 'OK' AND m.document_sha256 = i.sha);
-- a shown document replaced by another (not a first read) joins the market event log
INSERT INTO market_events (type, collection_address, token_id)
  SELECT 'METADATA_UPDATE', i.c, i.t FROM metadata_in i JOIN token_metadata m ON m.collection_address = i.c AND m.token_id = i.t
  WHERE i.changed AND m.document_sha256 IS NOT NULL ORDER BY i.c, i.t;
WITH old AS (
  DELETE FROM token_attributes a USING metadata_in i WHERE i.changed AND a.collection_address = i.c AND a.token_id = i.t
  RETURNING a.collection_address, a.trait_type, a.value)
UPDATE trait_values v SET token_count = v.token_count - d.n
  FROM (SELECT collection_address, trait_type, value, count(*) AS n FROM old GROUP BY 1, 2, 3) d
  WHERE v.collection_address = d.collection_address AND v.trait_type = d.trait_type AND v.value = d.value;
WITH added AS (
  INSERT INTO token_attributes (collection_address, token_id, trait_type, value, display_type, kind, number_value, position)
  SELECT i.c, i.t, a.trait_type, a.value, a.display_type, a.kind, a.number_value, a.position
  FROM metadata_in i, jsonb_to_recordset(i.attrs) AS a(trait_type text, value text, display_type text, kind "AttributeKind", number_value float8, position int)
  WHERE i.changed
  ON CONFLICT DO NOTHING
  RETURNING collection_address, trait_type, value, kind, number_value)
INSERT INTO trait_values (collection_address, trait_type, value, kind, number_value, token_count)
  SELECT collection_address, trait_type, value, max(kind), max(number_value), count(*) FROM added GROUP BY 1, 2, 3
  ON CONFLICT (collection_address, trait_type, value) DO UPDATE SET token_count = trait_values.token_count + excluded.token_count, kind = excluded.kind, number_value = excluded.number_value;
DELETE FROM trait_values v USING (SELECT DISTINCT c FROM metadata_in WHERE changed) s WHERE v.collection_address = s.c AND v.token_count <= 0;
INSERT INTO token_metadata AS m (collection_address, token_id, status, error_code, error_message, token_uri, fetched_at, next_fetch_at, document, document_sha256,
    name, description, image, animation_url, external_url, attempts, due_at, updated_at)
  SELECT i.c, i.t, i.status, i.error_code, i.error_message, i.token_uri, now(), i.next_fetch_at, i.document, i.sha,
    i.name, i.description, i.image, i.animation_url, i.external_url, CASE WHEN i.retry_at IS NULL THEN 0 ELSE 1 END, COALESCE(i.retry_at, i.next_fetch_at), now()
  FROM metadata_in i
  ON CONFLICT (collection_address, token_id) DO UPDATE SET
    status = excluded.status, error_code = excluded.error_code, error_message = excluded.error_message, token_uri = excluded.token_uri,
    fetched_at = excluded.fetched_at, next_fetch_at = excluded.next_fetch_at,
    document = CASE WHEN excluded.status = 'OK' THEN excluded.document ELSE m.document END,
    document_sha256 = CASE WHEN excluded.status = 'OK' THEN excluded.document_sha256 ELSE m.document_sha256 END,
    name = CASE WHEN excluded.status = 'OK' THEN excluded.name ELSE m.name END,
    description = CASE WHEN excluded.status = 'OK' THEN excluded.description ELSE m.description END,
    image = CASE WHEN excluded.status = 'OK' THEN excluded.image ELSE m.image END,
    animation_url = CASE WHEN excluded.status = 'OK' THEN excluded.animation_url ELSE m.animation_url END,
    external_url = CASE WHEN excluded.status = 'OK' THEN excluded.external_url ELSE m.external_url END,
    attempts = CASE WHEN excluded.attempts = 0 THEN 0 ELSE m.attempts + 1 END,
    -- a read asked for while this one was in flight (an event, a refresh) is kept: it happens next
    due_at = CASE WHEN m.due_at IS NOT NULL AND m.lease_owner IS NOT NULL THEN m.due_at ELSE excluded.due_at END,
    lease_owner = NULL, lease_expires_at = NULL, updated_at = now();
INSERT INTO collection_metadata AS k (collection_address, rarity_due_at)
  SELECT DISTINCT c, now() + interval '2 seconds' FROM metadata_in WHERE changed
  ON CONFLICT (collection_address) DO UPDATE SET rarity_due_at = COALESCE(k.rarity_due_at, excluded.rarity_due_at);
-- each stored image is a source for our media origin (docs/media.md): fetched once, its smallest
-- variant made at once and the larger ones on their first request (eager false)
INSERT INTO media_sources AS s (url_sha256, url, eager, due_at)
  SELECT DISTINCT ${urlSha256Sql('i.image')}, i.image, false, now() FROM metadata_in i WHERE i.status = 'OK' AND btrim(COALESCE(i.image, '')) <> ''
  ON CONFLICT (url_sha256) DO UPDATE SET last_referenced_at = now();
`;
}
