// A collection's own metadata (ERC-7572 contractURI) where an admin has set none: the metadata
// worker's process reads it for collections that are due (new ones, a refresh a client asked for,
// the recheck of an http document), through the same fetcher as token documents (the SSRF guard,
// the gateways, IPFS verification, the limits), and fills the collection's empty fields.
//
// What it filled is kept (collection_metadata.contract_filled): a later read replaces a field only
// while it still holds what the worker wrote, so an admin's value (set before or after) always
// wins, and a value the admin cleared is filled again from the contract.
import { randomUUID } from 'node:crypto';
import { CONTRACT_FIELDS, normaliseContractMetadata, type ContractMetadata } from '../domain/contract-metadata.js';
import { parseContentUri } from '../domain/token-uri.js';
import type { ChainReader } from '../chain/chain-reader.js';
import type { ServiceDeps } from './deps.js';
import type { ContentFetcher } from './metadata-fetch/index.js';
import { publicMediaUrl } from './metadata-worker.js';

/** Collections read per pass. */
const BATCH = 8;
const LEASE_MS = 10 * 60_000;

/** The collections column of each contract field. */
const COLUMN: Record<(typeof CONTRACT_FIELDS)[number], string> = {
  name: 'name',
  description: 'description',
  logoURI: 'logo_uri',
  bannerURI: 'banner_uri',
  websiteLink: 'website_link',
};

export type ContractOutcome = { ok: true; uri: string; metadata: ContractMetadata } | { ok: false; uri: string | null; code: string; message: string };

export function createContractMetadata(deps: Pick<ServiceDeps, 'db' | 'config'>, chain: Pick<ChainReader, 'contractUri'>, fetcher: ContentFetcher) {
  const sql = deps.db.sql;
  const cfg = deps.config.metadata;
  const owner = `contract-${process.pid}-${randomUUID()}`;

  /**
   * Up to `limit` collections whose contract document is due (never read, refreshed, rechecked),
   * leased to this worker: a collection with a live lease is not read twice at once.
   */
  async function claim(limit: number): Promise<string[]> {
    // due: never read, or due again, and not being read; or read by a worker whose lease ran out
    const due = (k: string) =>
      `((${k}.contract_lease_until IS NULL AND (${k}.contract_checked_at IS NULL OR ${k}.contract_due_at <= now())) OR ${k}.contract_lease_until < now())`;
    const rows = await sql.query<{ address: string }>(
      `WITH cand AS (
         SELECT c.address FROM collections c LEFT JOIN collection_metadata k ON k.collection_address = c.address
         WHERE k.collection_address IS NULL OR ${due('k')}
         ORDER BY k.contract_due_at NULLS FIRST, c.address LIMIT $1)
       INSERT INTO collection_metadata (collection_address, contract_lease_until) SELECT address, now() + make_interval(secs => $2::float8 / 1000) FROM cand
       ON CONFLICT (collection_address) DO UPDATE SET contract_due_at = NULL, contract_lease_until = EXCLUDED.contract_lease_until
         WHERE ${due('collection_metadata')}
       RETURNING collection_address AS address`,
      [limit, LEASE_MS],
    );
    return rows.map((r) => r.address);
  }

  async function readOne(collection: string): Promise<ContractOutcome> {
    let raw: string | null;
    try {
      raw = await chain.contractUri(collection);
    } catch (err) {
      return { ok: false, uri: null, code: 'RPC_UNAVAILABLE', message: `the chain could not be read: ${(err as Error).message}` };
    }
    if (raw === null) return { ok: false, uri: null, code: 'NO_URI', message: 'the contract has no contractURI' };
    const parsed = parseContentUri(raw);
    if (!parsed.ok) return { ok: false, uri: raw.slice(0, 2048), code: parsed.problem.code, message: parsed.problem.message };
    const outcome = await fetcher.fetch(parsed.source);
    if (!outcome.ok) return { ok: false, uri: raw, code: outcome.code, message: outcome.message };
    const doc = normaliseContractMetadata(outcome.bytes);
    if (!doc.ok) return { ok: false, uri: raw, code: doc.code, message: doc.message };
    const media = (uri: string | null) => (uri === null ? null : publicMediaUrl(uri, cfg.ipfsPublicGateway, cfg.arweaveGateway));
    return { ok: true, uri: raw, metadata: { ...doc.metadata, logoURI: media(doc.metadata.logoURI), bannerURI: media(doc.metadata.bannerURI) } };
  }

  /**
   * Records an outcome and, for a document, fills the collection's fields that are empty or still
   * hold what the worker filled before; one statement, under the row lock of the collection.
   */
  async function store(collection: string, o: ContractOutcome): Promise<void> {
    const filled = o.ok ? JSON.stringify(o.metadata) : null;
    // a field takes the document's value when it is empty or still holds the previous fill
    const sets = CONTRACT_FIELDS.map((f) => {
      const col = COLUMN[f];
      return `${col} = CASE WHEN $3::jsonb IS NOT NULL AND (c.${col} IS NULL OR c.${col} = k.contract_filled ->> '${f}') THEN $3::jsonb ->> '${f}' ELSE c.${col} END`;
    });
    await sql.query(
      `WITH k AS (SELECT contract_filled FROM collection_metadata WHERE collection_address = $1 FOR UPDATE),
       c AS (UPDATE collections c SET ${sets.join(', ')}, updated_at = CASE WHEN $3::jsonb IS NULL THEN c.updated_at ELSE now() END
             FROM k WHERE c.address = $1 RETURNING 1)
       UPDATE collection_metadata SET contract_checked_at = now(), contract_lease_until = NULL, contract_uri = $2,
         contract_status = $4::"MetadataStatus", contract_error_code = $5, contract_error_message = $6,
         contract_filled = COALESCE($3::jsonb, contract_filled),
         -- an http document can change under the same URI; read every document again at the recheck anyway
         contract_due_at = COALESCE(contract_due_at, now() + make_interval(secs => $7::float8 / 1000))
       -- after the collection's update (it reads the previous fill, which this row's update replaces)
       WHERE collection_address = $1 AND (SELECT count(*) FROM c) >= 0`,
      [collection, o.uri === null ? null : o.uri.slice(0, 2048), filled, o.ok ? 'OK' : 'ERROR', o.ok ? null : o.code, o.ok ? null : o.message.slice(0, 500), cfg.recheckMs],
    );
  }

  /** One pass: the due collections read and stored; how many. */
  async function runOnce(): Promise<number> {
    const due = await claim(BATCH);
    await Promise.all(due.map(async (c) => store(c, await readOne(c))));
    return due.length;
  }

  /** Reads a collection's document again at the next pass (a refresh). */
  async function refresh(collection: string): Promise<void> {
    await sql.query(
      `INSERT INTO collection_metadata (collection_address, contract_due_at) VALUES ($1, now())
       ON CONFLICT (collection_address) DO UPDATE SET contract_due_at = now()`,
      [collection],
    );
  }

  return { runOnce, refresh, owner };
}

export type ContractMetadataReader = ReturnType<typeof createContractMetadata>;
