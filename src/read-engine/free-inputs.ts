// Which of an operation's inputs a statement template may bind (./statement-template.ts): every
// Address, Hash or Uint256 a variable carries, whether the variable is that scalar itself or an
// input object holding it (`$filter: OrderFilterInput` with its collection, signer, price range),
// so a client that sends its filter as one variable gets one template for every collection
// rather than a shape per value. Lists are not entered (their length would shape the text
// anyway). Freeing a path is only an offer: a shape's second request is planned again with
// other values there, and a planner that branches on one refuses the template.
import { getNullableType, isInputObjectType, isScalarType, typeFromAST, type GraphQLInputType, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { FreeInput } from './statement-template.js';

const FREE_SCALARS = new Set<string>(['Address', 'Hash', 'Uint256'] satisfies FreeInput['kind'][]);
/** input objects nest a level or two here; the bound keeps a self-referencing type finite */
const MAX_DEPTH = 4;

export function freeInputs(schema: GraphQLSchema, operation: OperationDefinitionNode): FreeInput[] {
  const free: FreeInput[] = [];
  const visit = (type: GraphQLInputType, path: string, depth: number) => {
    const t = getNullableType(type);
    if (isScalarType(t)) {
      if (FREE_SCALARS.has(t.name)) free.push({ path, kind: t.name as FreeInput['kind'] });
    } else if (isInputObjectType(t) && depth < MAX_DEPTH) {
      for (const field of Object.values(t.getFields())) visit(field.type, `${path}.${field.name}`, depth + 1);
    }
  };
  for (const v of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, v.type);
    if (type) visit(type as GraphQLInputType, v.variable.name.value, 0);
  }
  return free;
}
