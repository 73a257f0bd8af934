// The Pothos builder: plugins and options only; types live in one file each beside it.
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import type { Context } from '../context.js';
import { ServiceError } from '../domain/errors.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    Address: { Input: string; Output: string };
    Uint256: { Input: bigint; Output: string };
    UnixTime: { Input: bigint; Output: number | bigint };
    Hash: { Input: string; Output: string };
    OrderParam: { Input: string | boolean | number; Output: string | boolean };
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin, ComplexityPlugin],
  defaultFieldNullability: false,
  prisma: {
    // One client per database (tests run PGlite and PostgreSQL in one process).
    client: (ctx) => ctx.services.deps.db.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    // node(id:) and nodes(ids:) are ./node.ts: an id this API never issued answers null there
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodeTypeOptions: { description: 'An object with a global id: refetch it with node(id:)' },
    idFieldOptions: { description: 'Opaque global id, stable for the life of the object; the cache key for clients' },
  },
  complexity: {
    defaultComplexity: 1,
    // Lists are bounded by the connection's `first` (its own multiplier) or are short (top 5):
    // a default multiplier on edges would count every page twice.
    defaultListMultiplier: 1,
    limit: (ctx) => ({
      complexity: ctx.services.deps.config.maxQueryComplexity,
      depth: ctx.services.deps.config.maxQueryDepth,
    }),
    complexityError: (kind, result) => {
      const key = kind.toLowerCase() as 'complexity' | 'depth' | 'breadth';
      const max = result[`max${kind}` as 'maxComplexity' | 'maxDepth' | 'maxBreadth'];
      return new ServiceError('QUERY_TOO_COMPLEX', `Query ${key} ${result[key]} is over the limit of ${max}`);
    },
  },
});

builder.queryType({});
builder.mutationType({});
