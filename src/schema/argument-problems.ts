// The order query parser names problems as the v1 REST parameters (pagination[first],
// price[min]); a GraphQL client wrote arguments (first, after, filter.price.min). Renamed here
// so a GraphQL error names what the client typed.
import { badRequest, type FieldProblem, type ServiceError } from '../domain/errors.js';

const ARGUMENT: Record<string, string> = {
  'pagination[first]': 'first',
  'pagination[cursor]': 'after',
  last: 'last',
  before: 'before',
  'price[min]': 'filter.price.min',
  'price[max]': 'filter.price.max',
  price: 'filter.price',
  sort: 'sort',
};

export function orderArgumentProblems(problems: FieldProblem[]): FieldProblem[] {
  return problems.map((p) => ({ ...p, field: ARGUMENT[p.field] ?? `filter.${p.field}` }));
}

/** A BAD_REQUEST naming the GraphQL argument: "Invalid argument first: must be ...". */
export function orderArgumentsError(problems: FieldProblem[]): ServiceError {
  const renamed = orderArgumentProblems(problems);
  const first = renamed[0]!;
  return badRequest(renamed, renamed.length === 1 ? `Invalid argument ${first.field}: ${first.message}` : `Invalid arguments: ${renamed.map((p) => `${p.field} ${p.message}`).join('; ')}`);
}
