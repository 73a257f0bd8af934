// OpenRarity (open-rarity 0.7.5, information-content scorer, RarityRanker.rank_collection) as
// ../shared/spec/openrarity-facts.md states it: ranks identical to the reference, scores within
// 1e-9. Pure: the tokens' attributes come in, ranks go out.

export interface RarityInputTrait {
  traitType: string;
  value: unknown;
  displayType: string | null;
}

export interface RarityInputToken {
  /** decimal uint256 text */
  tokenId: string;
  attributes: readonly RarityInputTrait[];
}

export interface RarityResult {
  tokenId: string;
  score: number;
  rank: number;
  uniqueAttributeCount: number;
}

export const OPEN_RARITY_METHOD = 'openrarity-information-content';
export const OPEN_RARITY_VERSION = '0.7.5';

/** The trait every token receives (spec: "The trait-count meta trait"). */
const TRAIT_COUNT_TYPE = 'meta_trait:trait_count';

/** math.isclose's default: relative 1e-9, no absolute tolerance (0 is close only to 0). */
const isClose = (a: number, b: number) => a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));

const normalise = (s: string) => s.toLowerCase().trim();

/**
 * A token's string traits as a map from normalised trait type to normalised value, the meta trait
 * included. Numeric values and any display_type leave a trait out (spec: "String traits only").
 * Where two traits share a type after normalisation the first in document order is kept (the
 * reference holds one value per type, so some choice is needed; this one does not depend on how
 * many duplicates follow). A token's own trait named like the meta trait is dropped: the name is
 * reserved for the count.
 */
function stringTraitsOf(token: RarityInputToken): Map<string, string> {
  const traits = new Map<string, string>();
  let traitCount = 0;
  for (const a of token.attributes) {
    if (typeof a.value !== 'string' || (a.displayType != null && a.displayType !== '')) continue;
    const type = normalise(a.traitType);
    if (type === TRAIT_COUNT_TYPE || traits.has(type)) continue;
    const value = normalise(a.value);
    traits.set(type, value);
    if (value !== 'none' && value !== '') traitCount++;
  }
  traits.set(TRAIT_COUNT_TYPE, String(traitCount));
  return traits;
}

/**
 * Ranks the tokens, best rank first. Tokens with equal (unique attribute count, score) stay in
 * tokenId order, numeric ascending: the reference sorts stably in its input order, and this is
 * the input order we give it.
 */
export function rankCollection(tokens: readonly RarityInputToken[]): RarityResult[] {
  const n = tokens.length;
  if (n === 0) return [];
  const traitsOf = tokens.map(stringTraitsOf);

  const counts = new Map<string, Map<string, number>>();
  for (const traits of traitsOf) {
    for (const [type, value] of traits) {
      let values = counts.get(type);
      if (!values) counts.set(type, (values = new Map()));
      values.set(value, (values.get(value) ?? 0) + 1);
    }
  }
  const nullCount = new Map<string, number>();
  for (const [type, values] of counts) {
    let present = 0;
    for (const c of values.values()) present += c;
    if (n - present > 0) nullCount.set(type, n - present);
  }

  // Every term depends only on a count, and sums run over the counts sorted: two tokens whose
  // traits have the same counts get bit-identical scores (so they tie exactly and fall back to
  // tokenId order) whatever their trait types are called or the order they were met in.
  const term = (c: number) => Math.log2(n / c);
  const allCounts: number[] = [...nullCount.values()];
  for (const values of counts.values()) allCounts.push(...values.values());
  allCounts.sort((a, b) => a - b);
  let entropy = 0;
  for (const c of allCounts) entropy += (c / n) * Math.log2(n / c); // -p log2 p, as log2(1/p) >= 0
  const divisor = entropy === 0 ? 1 : entropy;

  const types = [...counts.keys()];
  const ranked = tokens.map((token, i) => {
    const traits = traitsOf[i]!;
    const tokenCounts: number[] = [];
    let unique = 0;
    for (const type of types) {
      const value = traits.get(type);
      const c = value === undefined ? nullCount.get(type)! : counts.get(type)!.get(value)!;
      if (value !== undefined && c === 1) unique++;
      tokenCounts.push(c);
    }
    tokenCounts.sort((a, b) => a - b);
    let information = 0;
    for (const c of tokenCounts) information += term(c);
    return { tokenId: token.tokenId, order: BigInt(token.tokenId), score: information / divisor, uniqueAttributeCount: unique };
  });

  ranked.sort((a, b) => b.uniqueAttributeCount - a.uniqueAttributeCount || b.score - a.score || (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));

  const ranks = competitionRanks(ranked.map((t) => t.score));
  return ranked.map((t, i) => ({ tokenId: t.tokenId, score: t.score, rank: ranks[i]!, uniqueAttributeCount: t.uniqueAttributeCount }));
}

/**
 * Competition ranks (1, 2, 2, 4) of scores already in rank order. A score close to the one just
 * before it takes that one's rank; only that neighbour is looked at, so a run of ties is built
 * link by link and may span scores further apart than 1e-9 (spec: "Rank").
 */
export function competitionRanks(scoresInOrder: readonly number[]): number[] {
  const ranks: number[] = [];
  for (const [i, score] of scoresInOrder.entries()) {
    ranks.push(i > 0 && isClose(score, scoresInOrder[i - 1]!) ? ranks[i - 1]! : i + 1);
  }
  return ranks;
}
