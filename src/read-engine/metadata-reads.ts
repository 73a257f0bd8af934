// The read engine's declarations of token metadata (the resolvers they stand for:
// src/schema/token.ts, src/schema/trait.ts): a token's document fields, traits, metadata status
// and rarity over its token_metadata row, and a collection's trait panel. The SQL rules are
// src/services/token-metadata-sql.ts, shared with the resolver path.
// Written against ./read-type.ts only.
import type { FieldNode } from 'graphql';
import { TOKEN_ATTRIBUTE_ORDER, tokenAttributesFromSql, TRAIT_VALUE_ORDER, traitValueRowsSql } from '../services/token-metadata-sql.js';
import { HOSTED_VARIANT, hostedUrlSql } from '../services/hosted-media-sql.js';
import { jsonInt, jsonNullableString, jsonString, jsonUnixTime } from './json-sql.js';
import { objectFieldsSql } from './object-fields.js';
import type { FieldRead, Planner } from './read-type.js';

/** A JSON number of a float8 as JavaScript writes it (js_number_text, src/db/sql/js_number_text.sql): the resolvers' bytes. */
const jsonFloat = (sql: string) => `COALESCE(js_number_text(${sql}), 'null')`;
const epoch = (sql: string) => `floor(extract(epoch FROM ${sql}))::bigint`;
const jsonNullableTime = (sql: string) => `COALESCE(${jsonUnixTime(epoch(sql))}, 'null')`;

type RowRead = Extract<FieldRead<string>, { kind: 'row' }>;
/** A field over the token's metadata row `m` (LEFT JOINed once per token: all null without a row). */
const overMetadata = (json: RowRead['json']): FieldRead<string> => ({ kind: 'row', row: 'metadata', json });

/** One column of the token's metadata row, or null without a row. */
const documentField = (column: string) => overMetadata((_p, _nodes, m) => `COALESCE(to_json(${m}.${column})::text, 'null')`);

// null while the token shows no document; [] when its document has no traits
const attributes = overMetadata((p, nodes, m) => {
  const a = p.alias('a');
  const v = p.alias('v');
  const item = objectFieldsSql(p, nodes, 'TokenAttribute', {
    traitType: jsonString(`${a}.trait_type`),
    value: jsonString(`${a}.value`),
    displayType: jsonNullableString(`${a}.display_type`),
    kind: jsonString(`${a}.kind::text`),
    tokenCount: jsonInt(`COALESCE(${v}.token_count, 0)`),
  });
  return (
    `CASE WHEN ${m}.document_sha256 IS NULL THEN 'null' ELSE ` +
    `(SELECT '[' || COALESCE(string_agg(${item}, ',' ORDER BY ${TOKEN_ATTRIBUTE_ORDER(a)}), '') || ']' ${tokenAttributesFromSql(m, a, v)}) END`
  );
});

const metadata = overMetadata((p, nodes, m) => {
  const obj = objectFieldsSql(p, nodes, 'TokenMetadata', {
    status: jsonString(`${m}.status::text`),
    tokenURI: jsonNullableString(`${m}.token_uri`),
    fetchedAt: jsonNullableTime(`${m}.fetched_at`),
    nextFetchAt: jsonNullableTime(`COALESCE(${m}.due_at, ${m}.next_fetch_at)`),
    error: (errorNodes: readonly FieldNode[]) =>
      `CASE WHEN ${m}.error_code IS NULL THEN 'null' ELSE ${objectFieldsSql(p, errorNodes, 'MetadataError', {
        code: jsonString(`${m}.error_code`),
        message: jsonNullableString(`${m}.error_message`),
      })} END`,
  });
  return `CASE WHEN ${m}.collection_address IS NULL THEN 'null' ELSE ${obj} END`;
});

const rarity = overMetadata((p, nodes, m) => {
  const k = p.alias('k');
  const obj = objectFieldsSql(p, nodes, 'TokenRarity', {
    rank: jsonInt(`${m}.rarity_rank`),
    score: jsonFloat(`${m}.rarity_score`),
    tokensScored: jsonInt(`${k}.rarity_tokens_scored`),
    maxRank: jsonInt(`${k}.rarity_max_rank`),
    method: jsonString(`${k}.rarity_method`),
    version: jsonString(`${k}.rarity_version`),
  });
  // the collection's run is read only for a ranked token
  return (
    `CASE WHEN ${m}.rarity_rank IS NULL THEN 'null' ELSE COALESCE((SELECT ${obj} FROM collection_metadata ${k} ` +
    `WHERE ${k}.collection_address = ${m}.collection_address AND ${k}.rarity_method IS NOT NULL), 'null') END`
  );
});

/** The token's metadata row, joined once to a token row `t` (collection_address, token_id) for all the fields below. */
export const TOKEN_METADATA_ROW = (t: string, m: string) =>
  `token_metadata ${m} ON ${m}.collection_address = ${t}.collection_address AND ${m}.token_id = ${t}.token_id`;

/** Token's metadata fields, over its metadata row (TOKEN_METADATA_ROW, named `metadata` in the Token read type). */
export const TOKEN_METADATA_FIELDS: Record<string, FieldRead<string>> = {
  name: documentField('name'),
  description: documentField('description'),
  image: overMetadata((p, _nodes, m) => `COALESCE(to_json(${hostedUrlSql(`${m}.image`, HOSTED_VARIANT.token, p.mediaBaseUrl)})::text, 'null')`),
  imageSourceURI: documentField('image'),
  animationURL: documentField('animation_url'),
  externalURL: documentField('external_url'),
  attributes,
  metadata,
  rarity,
};

/** Collection.attributes over the collections alias `t`: the trait panel (TRAIT_VALUE rows grouped by trait type). */
export const COLLECTION_ATTRIBUTES: FieldRead<'address'> = {
  kind: 'planned',
  columns: ['address'],
  plan: (p: Planner, nodes, _args, t) => {
    const r = p.alias('r');
    const g = p.alias('g');
    const rv = p.alias('rv');
    const item = objectFieldsSql(p, nodes, 'TraitType', {
      traitType: jsonString(`${g}.trait_type`),
      kind: jsonString(`${g}.kind`),
      valueCount: jsonInt(`${g}.value_count`),
      min: jsonFloat(`${g}.lo`),
      max: jsonFloat(`${g}.hi`),
      values: (valueNodes: readonly FieldNode[]) => {
        const value = objectFieldsSql(p, valueNodes, 'TraitValue', {
          value: jsonString(`${rv}.value`),
          tokenCount: jsonInt(`${rv}.token_count`),
          sharePercent: jsonFloat(`${rv}.share_percent`),
          listedCount: jsonInt(`${rv}.listed_count`),
          floorPrice: jsonNullableString(`${rv}.floor_price::text`),
          bestBidPrice: jsonNullableString(`${rv}.best_bid_price::text`),
        });
        return `(SELECT '[' || COALESCE(string_agg(${value}, ',' ORDER BY ${TRAIT_VALUE_ORDER(rv)}), '') || ']' FROM ${r} ${rv} WHERE ${rv}.trait_type = ${g}.trait_type)`;
      },
    });
    return (
      `(WITH ${r} AS MATERIALIZED (${traitValueRowsSql(p.book, `${t}.address`)}) ` +
      `SELECT '[' || COALESCE(string_agg(${item}, ',' ORDER BY ${g}.trait_type COLLATE "C"), '') || ']' FROM ` +
      `(SELECT x.trait_type, max(x.kind::text) AS kind, count(*) AS value_count, min(x.number_value) AS lo, max(x.number_value) AS hi FROM ${r} x GROUP BY x.trait_type) ${g})`
    );
  },
};
