// Collection search (Query.searchCollections, GET /api/v1/collections/search): the collections
// whose name or symbol matches a query, best first. The ranking rule is written once, here, as a
// SELECT both readers wrap: the resolver path (searchCollections below) and the read engine
// (src/read-engine/collection-search-reads.ts), which renders the rows in its one statement.
//
// Best first:
//   1. the collection whose address the query is (in any letter case);
//   2. a name or symbol equal to the query, 3. one that starts with it (both compared lower-cased);
//   4. a trigram match (pg_trgm): similarity(name or symbol, query) >= 0.3, or
//      word_similarity(query, name or symbol) >= 0.6 (the query is close to a run of the name's
//      words: "yacht" in "Bored Ape Yacht Club"), better by the highest of those four figures;
// and among equally good matches: verified before unverified, the higher 24 h volume (the kept
// volume at the request's clock, as Query.collections ranks by VOLUME_24H), the address (code-unit
// order). Anything else does not match. The filter reads the GIN trigram indexes of migration
// 20261207200000_collection_search (`%` and `<%` use pg_trgm's thresholds, whose defaults are the
// cut-offs above; the cut-offs are checked again here, so the answer does not depend on them),
// the check passed through collection_search_checked, which tells the planner what it costs
// (the migration says why).
import type { StatementBatch } from '../db/statement-batch.js';
import type { CollectionSearch } from '../domain/collection-search-query.js';
import type { Collection } from '../generated/prisma/client.js';
import { clockParams, type AddClockParam } from './clock-param.js';
import { readDb, type ServiceDeps } from './deps.js';
import type { AddParam } from './listing-rewards.js';
import { ALL_COLLECTION_COLUMNS } from './order-page-sql.js';
import { DAY_MS, keptWindowVolumeSql } from './ranking-keys.js';

/** pg_trgm's defaults (pg_trgm.similarity_threshold, pg_trgm.word_similarity_threshold): below them, no match. */
export const SIMILARITY_CUTOFF = 0.3;
export const WORD_SIMILARITY_CUTOFF = 0.6;

/**
 * The matching collections, best first, at most `first`: a SELECT of every column of
 * `collections` and `search_rank` (1-based), to wrap and order by that rank. Its values are
 * added through `add`, the clock (the volume's window) through `at`.
 */
export function searchRowsSql(s: CollectionSearch, add: AddParam, at: AddClockParam): string {
  const q = `lower(${add(s.text)}::text)`;
  // LIKE's wildcards and escape character in the query match themselves
  const prefix = `replace(replace(replace(${q}, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'`;
  const address = add(s.address, '::varchar');
  const name = 'lower(c.name)';
  const symbol = 'lower(c.symbol)';
  const lo = at((now) => new Date(now.getTime() - DAY_MS).toISOString());
  const hi = at((now) => now.toISOString());
  const volume = keptWindowVolumeSql('VOLUME_24H', 's', lo, hi);
  const order = `s.search_tier, CASE WHEN s.search_tier = 4 THEN GREATEST(s.search_sim_name, s.search_word_name, s.search_sim_symbol, s.search_word_symbol) END DESC,
       s.is_verified DESC, ${volume.volume} DESC, s.address COLLATE "C"`;
  return `SELECT s.*, row_number() OVER (ORDER BY ${order}) AS search_rank
  FROM (SELECT c.*,
               CASE WHEN c.address = ${address} THEN 1
                    WHEN ${name} = ${q} OR ${symbol} = ${q} THEN 2
                    WHEN ${name} LIKE ${prefix} OR ${symbol} LIKE ${prefix} THEN 3
                    ELSE 4 END AS search_tier,
               similarity(${name}, ${q}) AS search_sim_name, word_similarity(${q}, ${name}) AS search_word_name,
               similarity(${symbol}, ${q}) AS search_sim_symbol, word_similarity(${q}, ${symbol}) AS search_word_symbol
          FROM collections c
         WHERE c.address = ${address}
            OR ${name} LIKE ${prefix} OR ${name} % ${q} OR ${q} <% ${name}
            OR ${symbol} LIKE ${prefix} OR ${symbol} % ${q} OR ${q} <% ${symbol}) s
  ${volume.joins}
 WHERE collection_search_checked(s.search_tier < 4
    OR s.search_sim_name >= ${SIMILARITY_CUTOFF} OR s.search_word_name >= ${WORD_SIMILARITY_CUTOFF}
    OR s.search_sim_symbol >= ${SIMILARITY_CUTOFF} OR s.search_word_symbol >= ${WORD_SIMILARITY_CUTOFF})
 ORDER BY ${order}
 LIMIT ${add(s.first)}::int`;
}

// Every column, named as Prisma names them; JSON-safe for a statement batch (no NUMERIC).
const COLUMNS = ALL_COLLECTION_COLUMNS.map((c) => `${c.sql} AS "${c.key}"`).join(', ');

export function createCollectionSearchService(deps: ServiceDeps) {
  /** The search's collections, best first (the resolver path; one statement, batchable). */
  async function searchCollections(s: CollectionSearch, runner: StatementBatch = readDb(deps).sql): Promise<Collection[]> {
    const values: unknown[] = [];
    const add: AddParam = (v, cast = '') => `$${values.push(v)}${cast}`;
    const rows = searchRowsSql(s, add, clockParams(add, deps.now()));
    const found = await runner.query<Collection>(`SELECT ${COLUMNS} FROM (${rows}) c ORDER BY c.search_rank`, values);
    for (const r of found) {
      // a statement batch returns timestamps as JSON strings
      r.createdAt = new Date(r.createdAt);
      r.updatedAt = new Date(r.updatedAt);
    }
    return found;
  }

  return { searchCollections };
}

export type CollectionSearchService = ReturnType<typeof createCollectionSearchService>;
