// OpenRarity ranks per collection (src/domain/open-rarity.ts), recomputed when a collection's
// traits changed: the metadata write marks the collection (collection_metadata.rarity_due_at, a
// couple of seconds ahead so a burst of writes costs one run), and the worker runs what is due.
// The tokens scored are those showing a document (document_sha256 set), not a maximum supply;
// a token without one gets no rank.
import { rankCollection, OPEN_RARITY_METHOD, OPEN_RARITY_VERSION, type RarityInputToken } from '../domain/open-rarity.js';
import { sqlHex, sqlJson } from '../db/sql-literals.js';
import type { ServiceDeps } from './deps.js';

export function createTokenRarity(deps: ServiceDeps) {
  const sql = deps.db.sql;

  /** Scores one collection now and stores every token's rank; returns the number scored. */
  async function rankNow(collectionAddress: string): Promise<number> {
    const rows = await sql.query<{ tokenId: string; attributes: { t: string; v: string; d: string | null; k: string }[] }>(
      `SELECT m.token_id::text AS "tokenId",
         COALESCE((SELECT json_agg(json_build_object('t', a.trait_type, 'v', a.value, 'd', a.display_type, 'k', a.kind) ORDER BY a.position)
           FROM token_attributes a WHERE a.collection_address = m.collection_address AND a.token_id = m.token_id), '[]'::json) AS attributes
       FROM token_metadata m WHERE m.collection_address = $1 AND m.document_sha256 IS NOT NULL`,
      [collectionAddress],
    );
    const tokens: RarityInputToken[] = rows.map((r) => ({
      tokenId: r.tokenId,
      // a number trait is not a string trait, whatever its display type: OpenRarity scores strings only
      attributes: (typeof r.attributes === 'string' ? JSON.parse(r.attributes) : r.attributes).map((a: { t: string; v: string; d: string | null; k: string }) => ({
        traitType: a.t,
        value: a.k === 'STRING' ? a.v : Number(a.v),
        displayType: a.d,
      })),
    }));
    const ranked = rankCollection(tokens);
    const maxRank = ranked.reduce((m, r) => Math.max(m, r.rank), 0);
    const c = sqlHex(collectionAddress);
    await sql.exec(`
UPDATE token_metadata m SET rarity_score = x.s, rarity_rank = x.r
  FROM jsonb_to_recordset(${sqlJson(ranked.map((r) => ({ t: r.tokenId, s: r.score, r: r.rank })))}) AS x(t numeric(78,0), s float8, r int)
  WHERE m.collection_address = ${c} AND m.token_id = x.t AND (m.rarity_score IS DISTINCT FROM x.s OR m.rarity_rank IS DISTINCT FROM x.r);
UPDATE token_metadata SET rarity_score = NULL, rarity_rank = NULL WHERE collection_address = ${c} AND document_sha256 IS NULL AND rarity_rank IS NOT NULL;
INSERT INTO collection_metadata AS k (collection_address, rarity_computed_at, rarity_tokens_scored, rarity_max_rank, rarity_method, rarity_version)
  VALUES (${c}, now(), ${ranked.length}, ${ranked.length ? maxRank : 'NULL'}, '${OPEN_RARITY_METHOD}', '${OPEN_RARITY_VERSION}')
  ON CONFLICT (collection_address) DO UPDATE SET rarity_computed_at = excluded.rarity_computed_at, rarity_tokens_scored = excluded.rarity_tokens_scored,
    rarity_max_rank = excluded.rarity_max_rank, rarity_method = excluded.rarity_method, rarity_version = excluded.rarity_version;`);
    return ranked.length;
  }

  /** Ranks every collection whose traits changed (due now); the due mark is taken first, so a change during the run marks it again. */
  async function rankDue(): Promise<number> {
    const due = await sql.query<{ address: string }>(
      `UPDATE collection_metadata SET rarity_due_at = NULL WHERE collection_address IN (
         SELECT collection_address FROM collection_metadata WHERE rarity_due_at <= now() ORDER BY rarity_due_at LIMIT 10 FOR UPDATE SKIP LOCKED)
       RETURNING collection_address AS address`,
    );
    for (const { address } of due) {
      try {
        await rankNow(address);
      } catch (err) {
        // owed again: the next pass tries once more
        await sql.query(`UPDATE collection_metadata SET rarity_due_at = COALESCE(rarity_due_at, now() + interval '30 seconds') WHERE collection_address = $1`, [address]);
        throw err;
      }
    }
    return due.length;
  }

  return { rankNow, rankDue };
}

export type TokenRarity = ReturnType<typeof createTokenRarity>;
