// Relay Global Object Identification (https://relay.dev/graphql/objectidentification.htm): each
// entity with a stable key implements Node with an opaque `id`, and node(id:) / nodes(ids:) fetch
// any of them again. Apollo Client's default cache keys objects by __typename and id, so two
// components selecting the same object with different fields share one cache entry.
//
// An id is base64 of `<Type>:<key>` (what Pothos and graphql-relay-js encode), the key being
// what identifies the object on chain or in the API already: Order:<hash>,
// Collection:<address>, CollectionStats:<address>, Sale:<txHash>:<logIndex> (a log's place in
// the chain, which survives re-indexing; the row id would not), Token:<address>:<tokenId>,
// Account:<address>. The read engine renders the same
// bytes in SQL (jsonGlobalId, src/read-engine/json-sql.ts; the keys in read-types.ts).
//
// An id that is not one this API issues answers null, as for an object that no longer exists:
// ids are opaque to clients, Relay expects null there, and nodes(ids:) keeps the others.
import { encodeGlobalID, resolveNodes } from '@pothos/plugin-relay';
import type { GraphQLResolveInfo } from 'graphql';
import type { Context } from '../context.js';
import { normalizeAddress } from '../domain/address.js';
import { isBytes32Hex } from '../domain/bytes32-hex.js';
import { badRequest } from '../domain/errors.js';
import type { Collection as CollectionRow, Order as OrderRow, Sale as SaleRow } from '../generated/prisma/client.js';
import type { CollectionStats } from '../services/stats.js';
import { tokenService, type TokenKey } from '../services/tokens.js';
import { Account, type AccountKey } from './account.js';
import { builder } from './builder.js';
import { Collection } from './collection.js';
import { CollectionStatsRef } from './collection-stats.js';
import { Sale } from './discovery.js';
import { Order } from './order.js';
import { Token } from './token.js';

/** nodes(ids:) reads at most a page's worth (the connections' largest `first`). */
export const MAX_NODE_IDS = 150;

const isChecksummedAddress = (key: string) => normalizeAddress(key) === key;
const LOG_INDEX = /^(0|[1-9][0-9]{0,9})$/;
/** A Sale's key, `<transaction hash>:<log index>` as the API writes it; null for anything else. */
function saleKey(key: string): { txHash: string; logIndex: number } | null {
  const at = key.indexOf(':');
  const [txHash, logIndex] = [key.slice(0, at), key.slice(at + 1)];
  return at > 0 && isBytes32Hex(txHash, { lowercase: true }) && LOG_INDEX.test(logIndex) ? { txHash, logIndex: Number(logIndex) } : null;
}
const EVENT_KEY = /^(0|[1-9][0-9]{0,18})$/;
const TOKEN_KEY = /^(0x[0-9a-fA-F]{40}):(0|[1-9][0-9]{0,77})$/;
const isTokenKey = (key: string) => {
  const m = TOKEN_KEY.exec(key);
  return m !== null && isChecksummedAddress(m[1]!) && BigInt(m[2]!) < 1n << 256n;
};

/** Node types by name: whether a key is one of theirs (the form the API returns, nothing looser). */
const NODE_KEYS: Record<string, (key: string) => boolean> = {
  Order: (key) => isBytes32Hex(key, { lowercase: true }),
  Collection: isChecksummedAddress,
  CollectionStats: isChecksummedAddress,
  Sale: (key) => {
    const k = saleKey(key);
    return k !== null && k.logIndex <= 2 ** 31 - 1;
  },
  // MarketEvent:<id>, the event log's id (src/schema/activity.ts)
  MarketEvent: (key) => EVENT_KEY.test(key) && BigInt(key) <= 2n ** 63n - 1n,
  Token: isTokenKey,
  Account: isChecksummedAddress,
};

/** The type and key an id names, or null when this API never issues it (malformed, unknown type, non-canonical). */
export function parseGlobalId(id: string): { typename: string; id: string } | null {
  if (id.length > 200 || !/^[A-Za-z0-9+/]*={0,2}$/.test(id)) return null;
  const text = Buffer.from(id, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return null;
  const typename = text.slice(0, colon);
  const key = text.slice(colon + 1);
  if (!Object.hasOwn(NODE_KEYS, typename) || !NODE_KEYS[typename]!(key)) return null;
  // one object, one id: another spelling of the same bytes (no padding, stray bits) is not it
  return encodeGlobalID(typename, key) === id ? { typename, id: key } : null;
}

builder.nodeRef(Order, {
  id: { resolve: (o: OrderRow) => o.hash },
  loadOne: (hash, ctx: Context) => ctx.services.orders.getOrder(hash),
});

builder.nodeRef(Collection, {
  id: { resolve: (c: CollectionRow) => c.address },
  loadMany: (addresses, ctx: Context) => addresses.map((a) => ctx.loaders.collection.load(a)),
});

builder.nodeRef(CollectionStatsRef, {
  id: { resolve: (s: CollectionStats) => s.address },
  loadMany: (addresses, ctx: Context) => addresses.map((a) => ctx.loaders.stats.load(a)),
});

builder.nodeRef(Sale, {
  id: { resolve: (s: SaleRow) => `${s.txHash}:${s.logIndex}` },
  loadMany: async (keys, ctx: Context) => {
    const wanted = keys.map((k) => saleKey(k)!);
    const rows = await ctx.services.sales.salesByKey(wanted);
    const byKey = new Map(rows.map((r) => [`${r.txHash}:${r.logIndex}`, r]));
    return keys.map((k) => byKey.get(k) ?? null);
  },
});

builder.nodeRef(Token, {
  id: { resolve: (k: TokenKey) => `${k.collectionAddress}:${k.tokenId}` },
  loadMany: (keys, ctx: Context) => keys.map((k) => tokenService(ctx.services.deps).getToken(k.slice(0, 42), k.slice(43))),
});

// every address has an account: nothing to read
builder.nodeRef(Account, {
  id: { resolve: (a: AccountKey) => a.address },
  loadOne: (address) => ({ address }),
});

const NodeRef = builder.nodeInterfaceRef();

/** The objects the ids name, in their order; null where none does. */
function loadNodes(ids: readonly (string | number)[], ctx: Context, info: GraphQLResolveInfo) {
  return resolveNodes(builder, ctx, info, ids.map((id) => parseGlobalId(String(id))));
}

builder.queryFields((t) => ({
  node: t.field({
    type: NodeRef,
    nullable: true,
    description: 'The object with this global id (its `id` field); null when none has it, a malformed id included.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx, info) => (await loadNodes([args.id], ctx, info))[0] as never,
  }),
  nodes: t.field({
    type: [NodeRef],
    nullable: { list: false, items: true },
    description: `The objects with these global ids, in their order; null for an id no object has. At most ${MAX_NODE_IDS} ids.`,
    args: { ids: t.arg.idList({ required: true }) },
    complexity: (args) => ({ field: 1, multiplier: Math.min(args.ids.length, MAX_NODE_IDS) }),
    resolve: (_root, args, ctx, info) => {
      if (args.ids.length > MAX_NODE_IDS) throw badRequest([{ field: 'ids', code: 'BAD_REQUEST', message: `at most ${MAX_NODE_IDS} ids` }], `Invalid argument ids: at most ${MAX_NODE_IDS} ids`);
      return loadNodes(args.ids, ctx, info) as never;
    },
  }),
}));
