// PostGraphile v5 as its documentation recommends, for the peer bench: the amber preset over
// the real tables of schema public (no view), production mode (NODE_ENV and GRAPHILE_ENV =
// production, set by the bench), prepared statements on (its default). Its generated
// `condition` argument covers every indexed column (PgIndexBehaviorsPlugin: collection_address,
// is_order_ask, token_id, signer, status, price, ... of the orders indexes, collection_address
// and timestamp of sales), so the only thing it lacks is this service's meaning of "VALID": stored
// VALID and not past endTime (spec 3). That is one `live: Boolean` condition on orders, added
// with addPgTableCondition (postgraphile/utils), the documented way to filter on a computation:
//   live: true   status = 'VALID' AND end_time >= now in whole seconds (the service's clock rounds down)
// written over the table alias so PostgreSQL plans it like any column condition and uses the same
// (collection_address, is_order_ask, status, price, id) / (collection_address, token_id, status,
// price, id) / (signer, id) indexes this service does. Every column the shapes filter or sort on is
// indexed and the foreign keys give the collection relations; one smart tag is needed: the
// orders hash is a UNIQUE INDEX (migration), not a UNIQUE constraint, and PostGraphile builds
// its single-row lookups from constraints, so `@unique hash` (jsonPgSmartTags, no change to the
// database) gives it orderByHash(hash:) over that index. A token's traits (token_attributes)
// reference their collection counts (trait_values, keyed by collection, trait type and value) by
// no constraint either: a `@foreignKey` smart tag gives each trait its count as a relation, which
// PostGraphile reads through trait_values' primary key as a foreign key would be.
// Its statements are prepared (its default) and its connections keep PostgreSQL's defaults
// (plan_cache_mode auto, JIT as the server has it), as its users run it: nothing is set on them.
// On this skewed market (one collection holding a large share of the book) PostgreSQL may turn a
// prepared statement into a generic plan made for an average collection after five executions;
// where it does, the bench's EXPLAIN shows the plan its connections settle on, and
// bench/peer-generic-plans.ts prints both plans of the same page.
// PostGraphile lives in its own package (bench/peer, CommonJS, Node >= 22): loaded with require.
import { createRequire } from 'node:module';

/** Node 20 lacks Promise.withResolvers, which PostGraphile 5 uses; it must exist before it loads. */
function polyfillWithResolvers() {
  const P = Promise as unknown as { withResolvers?: () => unknown };
  P.withResolvers ??= () => {
    let resolve!: (v: unknown) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

/** The PostGraphile instance over `connectionString` (a `pgl` with createServ/getSchema). */
export function makePostGraphile(connectionString: string, opts: { poolMaxSize?: number } = {}): any {
  polyfillWithResolvers();
  const peer = createRequire(new URL('./peer/package.json', import.meta.url));
  const { postgraphile } = peer('postgraphile');
  const { PostGraphileAmberPreset } = peer('postgraphile/presets/amber');
  const { makePgService } = peer('postgraphile/adaptors/pg');
  const { addPgTableCondition, jsonPgSmartTags } = peer('postgraphile/utils');

  const SmartTags = jsonPgSmartTags({
    version: 1,
    config: {
      class: {
        'public.orders': { tags: { unique: 'hash' } },
        // a trait row's collection count: trait_values is keyed by exactly these columns, kept
        // equal to a recount by the metadata write, but (it is written after the traits) not a constraint
        'public.token_attributes': { tags: { foreignKey: '(collection_address, trait_type, value) references trait_values (collection_address, trait_type, value)' } },
      },
    },
  });

  const LiveOrdersCondition = addPgTableCondition({ schemaName: 'public', tableName: 'orders' }, 'live', (build: any) => {
    const { sql } = build;
    return {
      description: "Live VALID orders: status VALID and endTime not passed (this service's status: [VALID]); false: every other order",
      type: build.graphql.GraphQLBoolean,
      apply(condition: any, live: boolean | null) {
        if (live == null) return;
        const alias = condition.alias;
        const valid = sql`(${alias}.status = 'VALID' and ${alias}.end_time >= floor(extract(epoch from now()))::bigint)`;
        condition.where(live ? valid : sql`not ${valid}`);
      },
    };
  });

  return postgraphile({
    extends: [PostGraphileAmberPreset],
    plugins: [SmartTags, LiveOrdersCondition],
    pgServices: [makePgService({ connectionString, schemas: ['public'], poolMaxSize: opts.poolMaxSize ?? 10 })],
    grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false },
    grafast: { explain: false },
  });
}
