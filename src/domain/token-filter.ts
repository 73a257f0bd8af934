// The trait filter of a token page (Query.tokens filter), checked once for the engine and the
// resolvers: OR within a trait type's values, AND across trait types and ranges, as peers'
// trait filters work ("a gold or silver background, and a crown").
import { badRequest, type FieldProblem } from './errors.js';

export interface TraitCondition {
  traitType: string;
  values: readonly string[];
}
export interface TraitRange {
  traitType: string;
  min: number | null;
  max: number | null;
}
export interface TokenTraitFilter {
  attributes: readonly TraitCondition[];
  ranges: readonly TraitRange[];
  rarityRank: { min: number | null; max: number | null } | null;
  /** tokens whose metadata name contains this text, letter case ignored */
  name: string | null;
}

export const TOKEN_FILTER_LIMITS = { conditions: 20, values: 100, text: 500 } as const;

export const EMPTY_TRAIT_FILTER: TokenTraitFilter = { attributes: [], ranges: [], rarityRank: null, name: null };
export const hasTraitFilter = (f: TokenTraitFilter) => f.attributes.length > 0 || f.ranges.length > 0 || f.rarityRank !== null || f.name !== null;

interface Input {
  attributes?: readonly { traitType: string; values: readonly string[] }[] | null;
  ranges?: readonly { traitType: string; min?: number | null; max?: number | null }[] | null;
  rarityRank?: { min?: number | null; max?: number | null } | null;
  name?: string | null;
}

/** The filter as given, or a BAD_REQUEST naming every problem (limits, empty lists, min above max). */
export function parseTokenTraitFilter(input: Input | null | undefined): TokenTraitFilter {
  const problems: FieldProblem[] = [];
  const problem = (field: string, message: string) => problems.push({ field, code: 'BAD_REQUEST', message });
  const attributes = input?.attributes ?? [];
  const ranges = input?.ranges ?? [];
  if (attributes.length + ranges.length > TOKEN_FILTER_LIMITS.conditions) problem('filter', `at most ${TOKEN_FILTER_LIMITS.conditions} trait conditions`);
  attributes.forEach((a, i) => {
    if (a.values.length === 0) problem(`filter.attributes[${i}].values`, 'name at least one value');
    if (a.values.length > TOKEN_FILTER_LIMITS.values) problem(`filter.attributes[${i}].values`, `at most ${TOKEN_FILTER_LIMITS.values} values`);
    if ([a.traitType, ...a.values].some((v) => v.length > TOKEN_FILTER_LIMITS.text)) problem(`filter.attributes[${i}]`, `texts of at most ${TOKEN_FILTER_LIMITS.text} characters`);
  });
  ranges.forEach((r, i) => {
    if ((r.min ?? null) === null && (r.max ?? null) === null) problem(`filter.ranges[${i}]`, 'give min, max or both');
    if (r.min != null && r.max != null && r.min > r.max) problem(`filter.ranges[${i}]`, 'min is above max');
    if (r.traitType.length > TOKEN_FILTER_LIMITS.text) problem(`filter.ranges[${i}].traitType`, `at most ${TOKEN_FILTER_LIMITS.text} characters`);
  });
  const rank = input?.rarityRank ?? null;
  if (rank && rank.min != null && rank.max != null && rank.min > rank.max) problem('filter.rarityRank', 'min is above max');
  const name = input?.name ?? null;
  if (name !== null && (name.trim().length === 0 || name.length > 200)) problem('filter.name', 'from 1 to 200 characters');
  if (problems.length) throw badRequest(problems);
  return {
    attributes: attributes.map((a) => ({ traitType: a.traitType, values: [...new Set(a.values)] })),
    ranges: ranges.map((r) => ({ traitType: r.traitType, min: r.min ?? null, max: r.max ?? null })),
    rarityRank: rank && (rank.min != null || rank.max != null) ? { min: rank.min ?? null, max: rank.max ?? null } : null,
    name: name === null ? null : name.trim(),
  };
}
