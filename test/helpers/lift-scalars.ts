// A document with its literal values of some scalars turned into variables, as a client that
// sends one document for every collection would write it: `collection(address: "0x..")` becomes
// `collection(address: $v0)` with `{ v0: "0x.." }`. Each variable takes the type of its
// position, so the document stays valid wherever the literal was.
import { Kind, parse, parseType, print, TypeInfo, valueFromASTUntyped, visit, visitWithTypeInfo, getNamedType, type GraphQLSchema, type OperationDefinitionNode, type ValueNode, type VariableDefinitionNode } from 'graphql';

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

/**
 * The lifted document with each object argument that holds lifted variables made one variable
 * of the argument's type, as Apollo and Relay clients send a filter: `orders(filter: {collection:
 * $v0})` becomes `orders(filter: $o0)` with `{ o0: { collection: "0x.." } }`, and `kinds` names
 * the scalars by their path in it (`o0.collection`). Objects with a lifted variable inside a list
 * are left as they are.
 */
export function liftObjects(lifted: Lifted, schema: GraphQLSchema): Lifted {
  const typeInfo = new TypeInfo(schema);
  const values: Record<string, unknown> = { ...lifted.variables };
  const kinds: Record<string, string> = { ...lifted.kinds };
  const defs: VariableDefinitionNode[] = [];
  const absorbed = new Set<string>();
  /** the lifted variables of an object literal by their path in it; null if one sits in a list */
  const inside = (value: ValueNode, path: string, out: [string, string][]): boolean => {
    if (value.kind === Kind.VARIABLE) {
      if (lifted.kinds[value.name.value]) out.push([path, value.name.value]);
      return true;
    }
    if (value.kind === Kind.OBJECT) return value.fields.every((f) => inside(f.value, path ? `${path}.${f.name.value}` : f.name.value, out));
    if (value.kind === Kind.LIST) return !value.values.some(holdsVariable);
    return true;
  };
  const holdsVariable = (value: ValueNode): boolean =>
    value.kind === Kind.VARIABLE || (value.kind === Kind.LIST && value.values.some(holdsVariable)) || (value.kind === Kind.OBJECT && value.fields.some((f) => holdsVariable(f.value)));
  const document = visit(
    parse(lifted.query),
    visitWithTypeInfo(typeInfo, {
      Argument: (node) => {
        const type = typeInfo.getArgument()?.type;
        const found: [string, string][] = [];
        if (!type || node.value.kind !== Kind.OBJECT || !inside(node.value, '', found) || !found.length) return undefined;
        const name = `o${defs.length}`;
        defs.push({ kind: Kind.VARIABLE_DEFINITION, variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: name } }, type: parseType(String(type)) });
        values[name] = valueFromASTUntyped(node.value, lifted.variables);
        for (const [path, variable] of found) {
          kinds[`${name}.${path}`] = lifted.kinds[variable]!;
          absorbed.add(variable);
        }
        return { ...node, value: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: name } } };
      },
    }),
  );
  for (const v of absorbed) {
    delete values[v];
    delete kinds[v];
  }
  const withDefs = visit(document, {
    OperationDefinition: (op: OperationDefinitionNode) => ({ ...op, variableDefinitions: [...(op.variableDefinitions ?? []).filter((d) => !absorbed.has(d.variable.name.value)), ...defs] }),
  });
  return { query: print(withDefs), variables: values, kinds };
}

/** `values` with `value` at a dotted path (objects along it copied). */
export function withPath(values: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  return { ...values, [head!]: rest.length ? withPath((values[head!] ?? {}) as Record<string, unknown>, rest.join('.'), value) : value };
}
