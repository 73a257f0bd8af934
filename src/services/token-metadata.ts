// Token metadata reads for the resolver path (src/schema/token.ts, src/schema/trait.ts), batched
// per request by DataLoaders; the SQL rules are ./token-metadata-sql.ts, shared with the read
// engine. Also the refreshes clients ask for (./metadata-queue.ts holds the queue).
import { nowSeconds, readDb, type ServiceDeps } from './deps.js';
import { createMetadataQueue, type RefreshAnswer } from './metadata-queue.js';
import { Params } from './order-page-sql.js';
import { TOKEN_ATTRIBUTE_ORDER, tokenAttributesFromSql, TRAIT_VALUE_ORDER, traitValueRowsSql } from './token-metadata-sql.js';
import { bookParams, type TokenKey } from './tokens.js';
import { createListeners } from './listeners.js';

export interface TokenMetadataRow {
  status: 'PENDING' | 'OK' | 'ERROR';
  errorCode: string | null;
  errorMessage: string | null;
  tokenUri: string | null;
  fetchedAt: Date | null;
  nextFetchAt: Date | null;
  hasDocument: boolean;
  name: string | null;
  description: string | null;
  image: string | null;
  animationUrl: string | null;
  externalUrl: string | null;
  rarity: { rank: number; score: number; tokensScored: number; maxRank: number; method: string; version: string } | null;
}

export interface TokenAttributeRow {
  traitType: string;
  value: string;
  displayType: string | null;
  kind: 'STRING' | 'NUMBER' | 'DATE';
  tokenCount: number;
}

export interface TraitValueRow {
  value: string;
  tokenCount: number;
  sharePercent: number;
  listedCount: number;
  floorPrice: string | null;
  bestBidPrice: string | null;
}

export interface TraitTypeRow {
  traitType: string;
  kind: string;
  valueCount: number;
  min: number | null;
  max: number | null;
  values: TraitValueRow[];
}

const keyOf = (k: TokenKey) => `${k.collectionAddress}:${k.tokenId}`;

export function createTokenMetadataService(deps: ServiceDeps) {
  const queue = createMetadataQueue(deps);

  /** Each token's metadata row (null: never queued), in key order. */
  async function metadata(keys: readonly TokenKey[]): Promise<(TokenMetadataRow | null)[]> {
    const rows = await readDb(deps).sql.query<TokenMetadataRow & { key: string; rank: number | null; score: number | null; scored: number | null; maxRank: number | null; method: string | null; version: string | null }>(
      `SELECT m.collection_address || ':' || m.token_id::text AS key, m.status::text AS status, m.error_code AS "errorCode", m.error_message AS "errorMessage",
         m.token_uri AS "tokenUri", m.fetched_at AS "fetchedAt", COALESCE(m.due_at, m.next_fetch_at) AS "nextFetchAt", m.document_sha256 IS NOT NULL AS "hasDocument",
         m.name, m.description, m.image, m.animation_url AS "animationUrl", m.external_url AS "externalUrl",
         m.rarity_rank AS rank, m.rarity_score AS score, k.rarity_tokens_scored AS scored, k.rarity_max_rank AS "maxRank", k.rarity_method AS method, k.rarity_version AS version
       FROM unnest($1::varchar[], $2::numeric[]) AS q(c, t)
       JOIN token_metadata m ON m.collection_address = q.c AND m.token_id = q.t
       LEFT JOIN collection_metadata k ON k.collection_address = m.collection_address`,
      [keys.map((k) => k.collectionAddress), keys.map((k) => k.tokenId)],
    );
    const byKey = new Map(rows.map((r) => [r.key, r]));
    return keys.map((k) => {
      const r = byKey.get(keyOf(k));
      if (!r) return null;
      const { key: _key, rank, score, scored, maxRank, method, version, ...row } = r;
      const rarity = rank !== null && score !== null && method !== null ? { rank, score, tokensScored: scored ?? 0, maxRank: maxRank ?? 0, method, version: version ?? '' } : null;
      return { ...row, rarity };
    });
  }

  /** Each token's traits with their collection counts, in document order (empty when none). */
  async function attributes(keys: readonly TokenKey[]): Promise<TokenAttributeRow[][]> {
    const rows = await readDb(deps).sql.query<TokenAttributeRow & { key: string }>(
      `SELECT m.collection_address || ':' || m.token_id::text AS key, a.trait_type AS "traitType", a.value, a.display_type AS "displayType", a.kind::text AS kind,
         COALESCE(a.token_count, 0) AS "tokenCount"
       FROM unnest($1::varchar[], $2::numeric[]) AS q(c, t)
       JOIN token_metadata m ON m.collection_address = q.c AND m.token_id = q.t
       CROSS JOIN LATERAL (SELECT a.*, v.token_count ${tokenAttributesFromSql('m', 'a', 'v')}) a
       ORDER BY m.collection_address, m.token_id, ${TOKEN_ATTRIBUTE_ORDER('a')}`,
      [keys.map((k) => k.collectionAddress), keys.map((k) => k.tokenId)],
    );
    const byKey = new Map<string, TokenAttributeRow[]>();
    for (const { key, ...a } of rows) byKey.set(key, [...(byKey.get(key) ?? []), { ...a, tokenCount: Number(a.tokenCount) }]);
    return keys.map((k) => byKey.get(keyOf(k)) ?? []);
  }

  /** A collection's trait panel: trait types in code-unit order, each with its values (most common first). */
  async function traitPanel(collectionAddress: string): Promise<TraitTypeRow[]> {
    const p = new Params();
    const b = bookParams((v, cast) => p.add(v, cast), () => p.add(nowSeconds(deps).toString(), '::bigint'), deps.network.strategies);
    const rows = await readDb(deps).sql.query<{
      trait_type: string;
      kind: string;
      value: string;
      token_count: number;
      number_value: number | null;
      share_percent: number;
      listed_count: string;
      floor_price: string | null;
      best_bid_price: string | null;
    }>(
      `SELECT r.trait_type, r.kind::text AS kind, r.value, r.token_count, r.number_value, r.share_percent, r.listed_count::text AS listed_count,
         r.floor_price::text AS floor_price, r.best_bid_price::text AS best_bid_price
       FROM (${traitValueRowsSql(b, p.add(collectionAddress))}) r ORDER BY r.trait_type COLLATE "C", ${TRAIT_VALUE_ORDER('r')}`,
      p.values,
    );
    const types: TraitTypeRow[] = [];
    for (const r of rows) {
      let type = types.at(-1);
      if (type?.traitType !== r.trait_type) {
        type = { traitType: r.trait_type, kind: r.kind, valueCount: 0, min: null, max: null, values: [] };
        types.push(type);
      }
      // the engine's max(kind::text): the kinds in text order
      if (r.kind > type.kind) type.kind = r.kind;
      type.valueCount += 1;
      if (r.number_value !== null) {
        type.min = type.min === null ? r.number_value : Math.min(type.min, r.number_value);
        type.max = type.max === null ? r.number_value : Math.max(type.max, r.number_value);
      }
      type.values.push({
        value: r.value,
        tokenCount: r.token_count,
        sharePercent: r.share_percent,
        listedCount: Number(r.listed_count),
        floorPrice: r.floor_price,
        bestBidPrice: r.best_bid_price,
      });
    }
    return types;
  }

  const refresh = (collectionAddress: string, tokenId: string | null): Promise<RefreshAnswer> =>
    tokenId === null ? queue.refreshCollection(collectionAddress) : queue.refreshToken(collectionAddress, tokenId);

  /** Token reads of this instance's worker (metrics): outcome code ('OK' or the error), host, milliseconds. */
  const reads = createListeners<[code: string, host: string, ms: number]>();

  return { metadata, attributes, traitPanel, refresh, queue, onRead: reads.on, noteRead: reads.emit };
}

export type TokenMetadataService = ReturnType<typeof createTokenMetadataService>;
