// Resolver-only fields under rendered rows ("islands", e.g. Collection.stats): the statement
// leaves a mark with the island and its parent's key; here every mark of the response is
// resolved in one GraphQL execution of a synthesized query that fetches each parent again by its
// key (`_0: collection(address: "0x..") { stats { ... } }`), so the fields' own resolvers and
// DataLoaders run as usual (all stats of a page in one batch), and each answer is spliced in
// where its mark was. The rest of the response stays PostgreSQL's text.
import { execute, Kind, type DocumentNode, type ExecutionArgs, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { forkContext, type Context } from '../context.js';
import { ISLAND_MARK, ISLAND_SEPARATOR } from './json-sql.js';
import type { Island } from './plan-query.js';
import type { ReadTypeName } from './read-type.js';
import { READ_TYPES } from './read-types.js';

/**
 * The refetch by key costs no statement where the type's loader can be primed with the key alone:
 * every resolver-only field of Collection reads the address only (its declared columns).
 */
const PRIME: Partial<Record<ReadTypeName, (ctx: Context, key: string) => void>> = {
  Collection: (ctx, key) => void ctx.loaders.collection.prime(key, { address: key } as never),
};

/** Something in an island could not be answered as the resolvers would in place: answer it all the ordinary way. */
export class IslandFailed extends Error {}

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;

/** Replaces every island mark in `texts` with its field's JSON. */
export async function resolveIslands(texts: string[], islands: readonly Island[], args: ExecutionArgs, operation: OperationDefinitionNode): Promise<string[]> {
  const wanted = new Map<string, { island: number; key: string }>();
  const split = texts.map((t) => t.split(ISLAND_MARK));
  for (const parts of split) {
    for (let i = 1; i < parts.length; i += 2) {
      const token = parts[i]!;
      if (!wanted.has(token)) {
        const at = token.indexOf(ISLAND_SEPARATOR);
        wanted.set(token, { island: Number(token.slice(0, at)), key: token.slice(at + 1) });
      }
    }
  }
  const tokens = [...wanted.keys()];
  const selections: FieldNode[] = tokens.map((token, i) => {
    const { island, key } = wanted.get(token)!;
    const { type, nodes } = islands[island]!;
    const { field, arg } = READ_TYPES[type].refetch!;
    return {
      kind: Kind.FIELD,
      alias: name(`_${i}`),
      name: name(field),
      arguments: [{ kind: Kind.ARGUMENT, name: name(arg), value: { kind: Kind.STRING, value: key } }],
      selectionSet: { kind: Kind.SELECTION_SET, selections: [...nodes] },
    };
  });
  const document: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [
      { kind: Kind.OPERATION_DEFINITION, operation: operation.operation, variableDefinitions: operation.variableDefinitions, selectionSet: { kind: Kind.SELECTION_SET, selections } },
      ...args.document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION),
    ],
  };
  const ctx = forkContext(args.contextValue as Context);
  for (const { island, key } of wanted.values()) PRIME[islands[island]!.type]?.(ctx, key);
  const result = await execute({ ...args, contextValue: ctx, document, operationName: undefined });
  if (result.errors?.length || !result.data) throw new IslandFailed(result.errors?.[0]?.message ?? 'no data');
  const json = new Map<string, string>();
  tokens.forEach((token, i) => {
    const parent = (result.data as Record<string, Record<string, unknown> | null>)[`_${i}`];
    const value = parent?.[islands[wanted.get(token)!.island]!.key];
    // the parent vanished between the statement and this execution
    if (value === undefined) throw new IslandFailed('parent row gone');
    json.set(token, JSON.stringify(value));
  });
  return split.map((parts) => parts.map((part, i) => (i % 2 ? json.get(part)! : part)).join(''));
}
