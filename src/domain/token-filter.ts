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

/**
 * Problems of a list of trait conditions (at `field`), added to `problems`: the token filter's
 * rules, which the order book's and the activity's attribute filters share.
 */
export function checkTraitConditions(list: readonly { traitType: string; values: readonly string[] }[], field: string, problems: FieldProblem[]): void {
  const problem = (at: string, message: string) => problems.push({ field: at, code: 'BAD_REQUEST', message });
  if (list.length > TOKEN_FILTER_LIMITS.conditions) problem(field, `at most ${TOKEN_FILTER_LIMITS.conditions} trait conditions`);
  list.forEach((a, i) => {
    if (a.values.length === 0) problem(`${field}[${i}].values`, 'name at least one value');
    if (a.values.length > TOKEN_FILTER_LIMITS.values) problem(`${field}[${i}].values`, `at most ${TOKEN_FILTER_LIMITS.values} values`);
    if ([a.traitType, ...a.values].some((v) => v.length > TOKEN_FILTER_LIMITS.text)) problem(`${field}[${i}]`, `texts of at most ${TOKEN_FILTER_LIMITS.text} characters`);
  });
}

/** Trait conditions with each value once (OR within a type, AND across the list). */
export const normaliseTraitConditions = (list: readonly { traitType: string; values: readonly string[] }[]): TraitCondition[] =>
  list.map((a) => ({ traitType: a.traitType, values: [...new Set(a.values)] }));

/** The filter as given, or a BAD_REQUEST naming every problem (limits, empty lists, min above max). */
export function parseTokenTraitFilter(input: Input | null | undefined): TokenTraitFilter {
  const problems: FieldProblem[] = [];
  const problem = (field: string, message: string) => problems.push({ field, code: 'BAD_REQUEST', message });
  const attributes = input?.attributes ?? [];
  const ranges = input?.ranges ?? [];
  if (attributes.length + ranges.length > TOKEN_FILTER_LIMITS.conditions) problem('filter', `at most ${TOKEN_FILTER_LIMITS.conditions} trait conditions`);
  checkTraitConditions(attributes, 'filter.attributes', problems);
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
    attributes: normaliseTraitConditions(attributes),
    ranges: ranges.map((r) => ({ traitType: r.traitType, min: r.min ?? null, max: r.max ?? null })),
    rarityRank: rank && (rank.min != null || rank.max != null) ? { min: rank.min ?? null, max: rank.max ?? null } : null,
    name: name === null ? null : name.trim(),
  };
}
