// A document with its literal values of some scalars turned into variables, as a client that
// sends one document for every collection would write it: `collection(address: "0x..")` becomes
// `collection(address: $v0)` with `{ v0: "0x.." }`. Each variable takes the type of its
// position, so the document stays valid wherever the literal was.
import { Kind, parse, parseType, print, TypeInfo, visit, visitWithTypeInfo, getNamedType, type GraphQLSchema, type OperationDefinitionNode, type VariableDefinitionNode } from 'graphql';

export interface Lifted {
  query: string;
  variables: Record<string, unknown>;
  /** each lifted variable's scalar */
  kinds: Record<string, string>;
}

export function liftScalars(query: string, schema: GraphQLSchema, scalars: readonly string[], variables: Record<string, unknown> = {}): Lifted {
  const typeInfo = new TypeInfo(schema);
  const defs: VariableDefinitionNode[] = [];
  const values: Record<string, unknown> = { ...variables };
  const kinds: Record<string, string> = {};
  const lift = (value: string) => {
    const type = typeInfo.getInputType();
    if (!type || !scalars.includes(getNamedType(type).name)) return undefined;
    const name = `v${defs.length}`;
    defs.push({ kind: Kind.VARIABLE_DEFINITION, variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: name } }, type: parseType(String(type)) });
    values[name] = value;
    kinds[name] = getNamedType(type).name;
    return { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: name } } as const;
  };
  const lifted = visit(
    parse(query),
    visitWithTypeInfo(typeInfo, {
      StringValue: (node) => lift(node.value),
      IntValue: (node) => lift(node.value),
    }),
  );
  const withDefs = visit(lifted, {
    OperationDefinition: (op: OperationDefinitionNode) => ({ ...op, variableDefinitions: [...(op.variableDefinitions ?? []), ...defs] }),
  });
  return { query: print(withDefs), variables: values, kinds };
}
