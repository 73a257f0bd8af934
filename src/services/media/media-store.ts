// The media tables (migration 20261208000000_media), read and written in SQL. Every write is one
// statement, so one transaction on both databases (PGlite is a single session: a BEGIN there
// would take in whatever else runs meanwhile): the source row, its variants and the outcome of
// the source URL that brought it commit together or not at all. Writes are idempotent under the
// content address: a second store of the same bytes adds only the variants that were missing, and
// two instances encoding the same variant at once keep the first row written (both read it back).
import { IMAGE_MIME_TYPES, type ImageType } from '../../domain/image-sniff.js';
import type { MediaVariant } from '../../domain/media-variants.js';
import type { SqlRunner } from '../../db/sql-runner.js';
import { asBuffer, type PreparedImage, type PreparedVariant } from './prepare-image.js';

export interface StoredVariant {
  contentType: string;
  etag: string;
  bytes: Buffer;
}

export interface StoredSource {
  type: ImageType;
  width: number;
  height: number;
  frames: number;
  source: Buffer;
}

/** The URL whose fetch brought the bytes: marked STORED by the same statement, if `owner` still leases it. */
export interface SourceOutcome {
  urlSha256: string;
  owner: string;
}

/**
 * Bytes cross the driver as base64 text (decode()/encode() in SQL): PGlite parses a bytea
 * parameter or column as hex text one character at a time, which took 0.6 s to write and 0.2-0.9 s
 * to read a 2.4 MB source, against 70 ms and 25 ms as base64 (PostgreSQL: about the same either
 * way, and base64 is a third shorter on the wire than bytea's hex). A Buffer decoded from the text
 * is also the bytes' own, not a view into a whole protocol message a cached variant would keep.
 */
const asText = (bytes: Uint8Array) => asBuffer(bytes).toString('base64');
const fromText = (text: string) => Buffer.from(text, 'base64');
const bytesColumn = (column: string, as: string) => `encode(${column}, 'base64') AS ${as}`;

const TYPE_OF_MIME = new Map(Object.entries(IMAGE_MIME_TYPES).map(([t, m]) => [m, t as ImageType]));
const FOREIGN_KEY_VIOLATION = '23503';

/** `(VALUES ($n::varchar, ...), ...)` for the variants, their values appended to params. */
function variantRows(variants: readonly PreparedVariant[], params: unknown[]): string {
  return variants
    .map((v) => {
      const at = params.length;
      params.push(v.variant, v.contentType, v.width, v.height, v.bytes.length, v.etag, asText(v.bytes));
      const p = (i: number) => `$${at + i + 1}`;
      return `(${p(0)}::varchar, ${p(1)}::varchar, ${p(2)}::int, ${p(3)}::int, ${p(4)}::int, ${p(5)}::varchar, decode(${p(6)}::text, 'base64'))`;
    })
    .join(', ');
}

export function createMediaStore(sql: SqlRunner) {
  /** Whether the media is stored, and which of its variants are. */
  async function storedVariants(sha256: string): Promise<{ known: boolean; variants: Set<string> }> {
    const rows = await sql.query<{ variant: string | null }>(
      `SELECT v.variant FROM media m LEFT JOIN media_variants v ON v.sha256 = m.sha256 WHERE m.sha256 = $1`,
      [sha256],
    );
    return { known: rows.length > 0, variants: new Set(rows.flatMap((r) => (r.variant ? [r.variant] : []))) };
  }

  /**
   * The source and its new variants in one statement; with `outcome`, the URL that brought it is
   * marked STORED in the same one. A source stored before (`sourceStored`, as storedVariants
   * said) is not sent again, only marked as referenced; if it was collected meanwhile, nothing is
   * written (with `outcome` the statement fails: the source URL is tried again). Answers whether
   * the media row is there and whether the lease still held (true without `outcome`).
   */
  async function store(prepared: PreparedImage, opts: { outcome?: SourceOutcome; sourceStored?: boolean } = {}): Promise<{ stored: boolean; held: boolean }> {
    const { sha256, mimeType, image, source } = prepared;
    const { outcome, sourceStored = false } = opts;
    const params: unknown[] = sourceStored ? [sha256] : [sha256, mimeType, image.width, image.height, image.frames, source.length, asText(source)];
    const media = sourceStored
      ? `UPDATE media SET last_referenced_at = now() WHERE sha256 = $1 RETURNING sha256`
      : `INSERT INTO media (sha256, mime_type, width, height, frames, byte_size, source)
         VALUES ($1, $2, $3::int, $4::int, $5::int, $6::int, decode($7::text, 'base64'))
         ON CONFLICT (sha256) DO UPDATE SET last_referenced_at = now()
         RETURNING sha256`;
    const variants = prepared.variants.length
      ? `, v AS (
          INSERT INTO media_variants (sha256, variant, content_type, width, height, byte_length, etag, bytes)
          SELECT m.sha256, x.variant, x.content_type, x.width, x.height, x.byte_length, x.etag, x.bytes
          FROM m CROSS JOIN (VALUES ${variantRows(prepared.variants, params)}) AS x(variant, content_type, width, height, byte_length, etag, bytes)
          ON CONFLICT (sha256, variant) DO NOTHING RETURNING 1)`
      : '';
    let sourceCte = '';
    if (outcome) {
      params.push(outcome.urlSha256, outcome.owner);
      const n = params.length;
      // sha256 from m: NULL if the media went, which the table's check refuses for a STORED row
      sourceCte = `, s AS (
          UPDATE media_sources SET status = 'STORED', sha256 = (SELECT sha256 FROM m), error_code = NULL, error_message = NULL, attempts = 0,
            fetched_at = now(), updated_at = now(), lease_owner = NULL, lease_expires_at = NULL
          WHERE url_sha256 = $${n - 1} AND lease_owner = $${n} RETURNING 1)`;
    }
    const [row] = await sql.query<{ stored: boolean; held: boolean }>(
      `WITH m AS (${media})${variants}${sourceCte}
       SELECT EXISTS (SELECT 1 FROM m) AS stored, ${outcome ? '(SELECT count(*) FROM s) > 0' : 'true'} AS held`,
      params,
    );
    return { stored: row?.stored ?? false, held: row?.held ?? false };
  }

  /** A variant's bytes, or null; `known`: whether the media itself is stored (a missing variant can then be encoded). */
  async function variant(sha256: string, name: MediaVariant): Promise<{ variant: StoredVariant | null; known: boolean }> {
    const [row] = await sql.query<{ content_type: string | null; etag: string | null; bytes: string | null; known: boolean }>(
      `SELECT v.content_type, v.etag, ${bytesColumn('v.bytes', 'bytes')}, EXISTS (SELECT 1 FROM media WHERE sha256 = $1) AS known
       FROM (SELECT 1) AS one LEFT JOIN media_variants v ON v.sha256 = $1 AND v.variant = $2`,
      [sha256, name],
    );
    if (row?.bytes == null) return { variant: null, known: row?.known ?? false };
    return { variant: { contentType: row.content_type!, etag: row.etag!, bytes: fromText(row.bytes) }, known: true };
  }

  /** The source bytes and what was learnt of them, to encode a variant. */
  async function source(sha256: string): Promise<StoredSource | null> {
    const [row] = await sql.query<{ mime_type: string; width: number; height: number; frames: number; source: string }>(
      `SELECT mime_type, width, height, frames, ${bytesColumn('source', 'source')} FROM media WHERE sha256 = $1`,
      [sha256],
    );
    const type = row && TYPE_OF_MIME.get(row.mime_type);
    if (!row || !type) return null;
    return { type, width: row.width, height: row.height, frames: row.frames, source: fromText(row.source) };
  }

  /**
   * Writes a variant encoded on request unless one is there already, and answers the stored row:
   * the first write wins, so every instance serves the same bytes under the same ETag. Null when
   * the media was collected meanwhile.
   */
  async function addVariant(sha256: string, v: PreparedVariant): Promise<StoredVariant | null> {
    const params: unknown[] = [sha256];
    try {
      const [row] = await sql.query<{ content_type: string; etag: string }>(
        `INSERT INTO media_variants (sha256, variant, content_type, width, height, byte_length, etag, bytes)
         SELECT $1, x.variant, x.content_type, x.width, x.height, x.byte_length, x.etag, x.bytes
         FROM (VALUES ${variantRows([v], params)}) AS x(variant, content_type, width, height, byte_length, etag, bytes)
         WHERE EXISTS (SELECT 1 FROM media WHERE sha256 = $1)
         ON CONFLICT (sha256, variant) DO NOTHING
         RETURNING content_type, etag`,
        params,
      );
      // what was just written: the encoder's own buffer
      if (row) return { contentType: row.content_type, etag: row.etag, bytes: v.bytes };
    } catch (err) {
      if ((err as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw err;
      return null;
    }
    // another writer was first (its row may be newer than this statement's snapshot): read it
    return (await variant(sha256, v.variant)).variant;
  }

  return { storedVariants, store, variant, source, addVariant };
}

export type MediaStore = ReturnType<typeof createMediaStore>;
