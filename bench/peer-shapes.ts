// The peer bench's frontend mix: per shape, the request this service answers (a GraphQL document
// or a REST path), PostGraphile's equivalent over the same tables where it can answer at all, the
// hand-written SQL floor (bench/peer-floor-sql.ts) and how to read the rows the answers must agree
// on. Field lists are written once and give the three selections, so they cannot drift apart.
// Order.priceEth is left out everywhere: PostGraphile has no equivalent.
import type { Picks } from './scale-loader.js';
import {
  accountPageFloor,
  activityFloor,
  collectionCardsFloor,
  collectionPageFloor,
  LIVE,
  orderByHashFloor,
  orderPageFloor,
  restOrdersFloor,
  salesFloor,
  tokenDetailFloor,
  tokenGridFloor,
  tokenPageFloor,
  tokenTraitsFloor,
  traitPanelFloor,
  type FloorStatement,
  type OrderSelection,
  type Vars,
} from './peer-floor-sql.js';
import { NESTED_QUERY, PAGE_QUERY, restOrdersPath } from './peer-queries.js';

export interface Shape {
  key: string;
  title: string;
  /** this service: a GraphQL document (POST /graphql) or a REST path (GET) */
  ours: { query: string } | { path: (p: Picks) => string };
  vars: (p: Picks) => Vars;
  /** PostGraphile's document, or why it cannot answer this shape */
  peer: { query: string } | { none: string };
  /** [key, price] of every row an answer holds, in order (lists of several fields joined by a '|' row) */
  oursRows: (json: any) => string[][] | null;
  peerRows?: (json: any) => string[][] | null;
  floor: FloorStatement;
  /** the answer moves with the clock (sales windows): a precheck mismatch is retried */
  clock?: boolean;
}

const ALL_ORDER_FIELDS = ['hash', 'collectionAddress', 'tokenId', 'isOrderAsk', 'signer', 'strategy', 'currencyAddress', 'amount', 'price', 'nonce', 'startTime', 'endTime', 'minPercentageToAsk', 'params', 'status', 'signature', 'v', 'r', 's'];
/** What a REST client gets (src/rest/documents.ts RestOrderFields), in its order. */
const REST_FIELDS = ['hash', 'collectionAddress', 'tokenId', 'isOrderAsk', 'signer', 'strategy', 'currencyAddress', 'amount', 'price', 'nonce', 'startTime', 'endTime', 'minPercentageToAsk', 'params', 'status', 'signature', 'r', 's', 'v'];
const EVENT_FIELDS = ['eventId', 'type', 'from', 'to', 'price', 'tokenId', 'txHash', 'createdAt'];
/** PostGraphile's names of EVENT_FIELDS (the id column is rowId beside the Node id) */
const PEER_EVENT: Record<string, string> = { eventId: 'rowId', from: 'fromAddress', to: 'toAddress' };
const SALE_FIELDS = ['txHash', 'logIndex', 'tokenId', 'amount', 'price', 'buyer', 'seller', 'isTakerAsk', 'timestamp', 'orderHash', 'currencyAddress', 'blockNumber'];

/** bench/peer-queries.ts NESTED_QUERY's selection */
const BOOK: OrderSelection = { fields: ['hash', 'tokenId', 'price', 'endTime', 'status'], collection: ['name', 'symbol', 'type', 'isVerified'] };
const BOOK_FULL: OrderSelection = { fields: ALL_ORDER_FIELDS, collection: ['name', 'symbol', 'type', 'isVerified'] };
const TOKEN_ASKS: OrderSelection = { fields: ['hash', 'price', 'signer', 'amount', 'endTime', 'status'] };
const TOKEN_BIDS: OrderSelection = { fields: ['hash', 'price', 'signer', 'endTime', 'status'] };
const MAKER: OrderSelection = { fields: REST_FIELDS };
const OFFERS: OrderSelection = { fields: ['hash', 'tokenId', 'price', 'signer', 'strategy', 'endTime', 'status'] };
const ONE: OrderSelection = { fields: ALL_ORDER_FIELDS, collection: ['name'] };
/** bench/peer-queries.ts PAGE_QUERY's selections */
const PAGE_COLLECTION = ['address', 'name', 'symbol', 'type', 'isVerified', 'logoURI'];
const PAGE_ORDER = ['hash', 'tokenId', 'price', 'endTime', 'status'];

const PEER_COLLECTION: Record<string, string> = { logoURI: 'logoUri' };
const ours = (s: OrderSelection) => `edges { node { ${s.fields.join(' ')}${s.collection ? ` collection { ${s.collection.join(' ')} }` : ''} } }`;
const peer = (s: OrderSelection) => `nodes { ${s.fields.join(' ')}${s.collection ? ` collectionByCollectionAddress { ${s.collection.map((f) => PEER_COLLECTION[f] ?? f).join(' ')} }` : ''} }`;

const rows = (list: unknown, key = 'hash'): string[][] | null => (Array.isArray(list) ? list.map((n: any) => [String(n?.[key]), String(n?.price)]) : null);
const nodes = (conn: any) => (Array.isArray(conn?.edges) ? conn.edges.map((e: any) => e?.node) : null);
const join = (...lists: (string[][] | null)[]) => (lists.some((l) => l === null) ? null : lists.flatMap((l, i) => (i ? [['|', '|'], ...l!] : l!)));

const LIVE_ASKS = `o.collection_address = $2 AND o.is_order_ask AND ${LIVE}`;
const cards = (orderBy: 'VOLUME_24H' | 'FLOOR') => `query Cards {
  collections(first: 20, orderBy: ${orderBy}) {
    edges { node { address name stats { floorPrice volume24h }
      orders(first: 3, sort: PRICE_ASC, filter: { isOrderAsk: true, status: [VALID] }) { edges { node { hash price tokenId } } } } }
  }
}`;
const cardRows = (json: any) => {
  const list = nodes(json?.data?.collections);
  return list && list.map((c: any) => [String(c?.address), String(c?.stats?.volume24h)]);
};

export const SHAPES: Shape[] = [
  {
    key: 'a',
    title: 'book page (50 cheapest live asks + collection)',
    ours: { query: NESTED_QUERY },
    vars: (p) => ({ collection: p.collection }),
    peer: {
      query: `query BookPage($collection: String!) {
  allOrders(condition: { collectionAddress: $collection, isOrderAsk: true, live: true }, orderBy: [PRICE_ASC, ROW_ID_ASC], first: 50) { ${peer(BOOK)} }
}`,
    },
    oursRows: (j) => rows(nodes(j?.data?.orders)),
    peerRows: (j) => rows(j?.data?.allOrders?.nodes),
    floor: orderPageFloor('orders', LIVE_ASKS, 'PRICE_ASC', 50, BOOK, (v) => [v.collection], '$2'),
  },
  {
    key: 'b',
    title: 'book page, every Order field, 100 rows',
    ours: {
      query: `query BookFull($collection: Address!) {
  orders(first: 100, sort: PRICE_ASC, filter: { collection: $collection, isOrderAsk: true, status: [VALID] }) { ${ours(BOOK_FULL)} }
}`,
    },
    vars: (p) => ({ collection: p.collection }),
    peer: {
      query: `query BookFull($collection: String!) {
  allOrders(condition: { collectionAddress: $collection, isOrderAsk: true, live: true }, orderBy: [PRICE_ASC, ROW_ID_ASC], first: 100) { ${peer(BOOK_FULL)} }
}`,
    },
    oursRows: (j) => rows(nodes(j?.data?.orders)),
    peerRows: (j) => rows(j?.data?.allOrders?.nodes),
    floor: orderPageFloor('orders', LIVE_ASKS, 'PRICE_ASC', 100, BOOK_FULL, (v) => [v.collection], '$2'),
  },
  {
    key: 'c',
    title: "token page (a token's live asks and bids)",
    ours: {
      query: `query TokenPage($collection: Address!, $tokenId: Uint256!) {
  asks: orders(first: 20, sort: PRICE_ASC, filter: { collection: $collection, tokenId: $tokenId, isOrderAsk: true, status: [VALID] }) { ${ours(TOKEN_ASKS)} }
  bids: orders(first: 20, sort: PRICE_DESC, filter: { collection: $collection, tokenId: $tokenId, isOrderAsk: false, status: [VALID] }) { ${ours(TOKEN_BIDS)} }
}`,
    },
    vars: (p) => ({ collection: p.collection, tokenId: p.tokenId }),
    peer: {
      query: `query TokenPage($collection: String!, $tokenId: BigFloat!) {
  asks: allOrders(condition: { collectionAddress: $collection, tokenId: $tokenId, isOrderAsk: true, live: true }, orderBy: [PRICE_ASC, ROW_ID_ASC], first: 20) { ${peer(TOKEN_ASKS)} }
  bids: allOrders(condition: { collectionAddress: $collection, tokenId: $tokenId, isOrderAsk: false, live: true }, orderBy: [PRICE_DESC, ROW_ID_DESC], first: 20) { ${peer(TOKEN_BIDS)} }
}`,
    },
    oursRows: (j) => join(rows(nodes(j?.data?.asks)), rows(nodes(j?.data?.bids))),
    peerRows: (j) => join(rows(j?.data?.asks?.nodes), rows(j?.data?.bids?.nodes)),
    floor: tokenPageFloor(20, TOKEN_ASKS, TOKEN_BIDS),
  },
  {
    key: 'd',
    title: "a maker's open orders (REST fields, newest first)",
    ours: {
      query: `query MakerOrders($signer: Address!) {
  orders(first: 50, filter: { signer: $signer, status: [VALID] }) { ${ours(MAKER)} }
}`,
    },
    vars: (p) => ({ signer: p.signer }),
    peer: {
      query: `query MakerOrders($signer: String!) {
  allOrders(condition: { signer: $signer, live: true }, orderBy: [ROW_ID_DESC], first: 50) { ${peer(MAKER)} }
}`,
    },
    oursRows: (j) => rows(nodes(j?.data?.orders)),
    peerRows: (j) => rows(j?.data?.allOrders?.nodes),
    floor: orderPageFloor('orders', `o.signer = $2 AND ${LIVE}`, 'NEWEST', 50, MAKER, (v) => [v.signer]),
  },
  {
    key: 'e',
    title: "a collection's offer board (50 best live bids)",
    ours: {
      query: `query OfferBoard($collection: Address!) {
  orders(first: 50, sort: PRICE_DESC, filter: { collection: $collection, isOrderAsk: false, status: [VALID] }) { ${ours(OFFERS)} }
}`,
    },
    vars: (p) => ({ collection: p.collection }),
    peer: {
      query: `query OfferBoard($collection: String!) {
  allOrders(condition: { collectionAddress: $collection, isOrderAsk: false, live: true }, orderBy: [PRICE_DESC, ROW_ID_DESC], first: 50) { ${peer(OFFERS)} }
}`,
    },
    oursRows: (j) => rows(nodes(j?.data?.orders)),
    peerRows: (j) => rows(j?.data?.allOrders?.nodes),
    floor: orderPageFloor('orders', `o.collection_address = $2 AND NOT o.is_order_ask AND ${LIVE}`, 'PRICE_DESC', 50, OFFERS, (v) => [v.collection]),
  },
  {
    key: 'f',
    title: 'collection page (collection, stats, 20 asks, listing rewards)',
    ours: { query: PAGE_QUERY },
    vars: (p) => ({ collection: p.collection }),
    peer: { none: 'stats (floor, market cap, owners, windowed volumes and counts, change) and listing rewards are computed by this service' },
    oursRows: (j) => rows(nodes(j?.data?.collection?.orders)),
    floor: collectionPageFloor(PAGE_COLLECTION, PAGE_ORDER, 20),
    clock: true,
  },
  {
    key: 'g',
    title: 'collection cards by 24h volume (20, stats, 3 asks each)',
    ours: { query: cards('VOLUME_24H') },
    vars: () => ({}),
    peer: { none: 'ranks collections by a statistic this service computes (24h volume from the sales rollups); PostGraphile has no such column' },
    oursRows: cardRows,
    floor: collectionCardsFloor('VOLUME_24H', 20, 3),
    clock: true,
  },
  {
    key: 'h',
    title: 'sales history page (50 newest sales of a collection)',
    ours: {
      query: `query SalesPage($collection: Address!) {
  sales(collection: $collection, first: 50) { edges { node { ${SALE_FIELDS.join(' ')} } } }
}`,
    },
    vars: (p) => ({ collection: p.collection }),
    peer: {
      query: `query SalesPage($collection: String!) {
  allSales(condition: { collectionAddress: $collection }, orderBy: [TIMESTAMP_DESC, ROW_ID_DESC], first: 50) { nodes { ${SALE_FIELDS.join(' ')} } }
}`,
    },
    oursRows: (j) => rows(nodes(j?.data?.sales), 'txHash'),
    peerRows: (j) => rows(j?.data?.allSales?.nodes, 'txHash'),
    floor: salesFloor(50, SALE_FIELDS),
  },
  {
    key: 'i',
    title: 'one order by hash (every field + collection name)',
    ours: {
      query: `query OneOrder($hash: Hash!) {
  order(hash: $hash) { ${ALL_ORDER_FIELDS.join(' ')} collection { name } }
}`,
    },
    vars: (p) => ({ hash: p.hash }),
    peer: {
      query: `query OneOrder($hash: String!) {
  orderByHash(hash: $hash) { ${ALL_ORDER_FIELDS.join(' ')} collectionByCollectionAddress { name } }
}`,
    },
    oursRows: (j) => rows(j?.data?.order ? [j.data.order] : null),
    peerRows: (j) => rows(j?.data?.orderByHash ? [j.data.orderByHash] : null),
    floor: orderByHashFloor(ONE),
  },
  {
    key: 'j',
    title: 'REST GET /api/v1/orders (20 cheapest live asks)',
    ours: { path: (p) => restOrdersPath(p.collection) },
    vars: (p) => ({ collection: p.collection }),
    peer: {
      query: `query RestOrders($collection: String!) {
  allOrders(condition: { collectionAddress: $collection, isOrderAsk: true, live: true }, orderBy: [PRICE_ASC, ROW_ID_ASC], first: 20) { nodes { ${REST_FIELDS.join(' ')} } }
}`,
    },
    oursRows: (j) => (j?.success === true ? rows(j.data) : null),
    peerRows: (j) => rows(j?.data?.allOrders?.nodes),
    floor: restOrdersFloor(20, { fields: REST_FIELDS }),
  },
  {
    key: 'k',
    title: 'collection cards by floor (20, stats, 3 asks each)',
    ours: { query: cards('FLOOR') },
    vars: () => ({}),
    peer: { none: 'ranks collections by a statistic this service computes (floor price: cheapest live standard listing); PostGraphile has no such column' },
    oursRows: cardRows,
    floor: collectionCardsFloor('FLOOR', 20, 3),
    clock: true,
  },
  {
    key: 'l',
    title: 'activity page (50 newest events of a collection)',
    ours: {
      query: `query Activity($collection: Address!) {
  activity(first: 50, filter: { collection: $collection }) { edges { node { ${EVENT_FIELDS.join(' ')} } } }
}`,
    },
    vars: (p) => ({ collection: p.collection }),
    // the log holds no RETRACTED row here (no reorg), so the table's plain condition is the same question
    peer: {
      query: `query Activity($collection: String!) {
  allMarketEvents(condition: { collectionAddress: $collection }, orderBy: [ROW_ID_DESC], first: 50) { nodes { ${EVENT_FIELDS.map((f) => PEER_EVENT[f] ?? f).join(' ')} } }
}`,
    },
    oursRows: (j) => rows(nodes(j?.data?.activity), 'eventId'),
    peerRows: (j) => rows(j?.data?.allMarketEvents?.nodes, 'rowId'),
    floor: activityFloor(50, EVENT_FIELDS),
  },
];

/** The token page's selections (shape m), written once for this service, PostGraphile and the floor. */
const TOKEN = {
  collection: ['name', 'symbol'],
  ask: ['hash', 'price', 'signer', 'amount', 'endTime'],
  bid: ['hash', 'price', 'signer', 'strategy', 'endTime'],
  sale: ['txHash', 'price', 'buyer', 'seller', 'timestamp'],
  event: EVENT_FIELDS,
  events: 20,
};
/** The wallet page's selections (shape n). */
const WALLET = { holdings: 20, offers: 10, orders: 10, offer: ['hash', 'collectionAddress', 'tokenId', 'price', 'signer', 'endTime'], order: ['hash', 'collectionAddress', 'tokenId', 'isOrderAsk', 'price', 'endTime'] };

/** The higher price of two bid lists' first rows, the older (lower rowId) on a tie: what a client of PostGraphile computes for Token.bestBid. */
function higherBid(a: any[] | undefined, b: any[] | undefined): any[] | null {
  if (!Array.isArray(a) || !Array.isArray(b)) return null;
  const both = [...a.slice(0, 1), ...b.slice(0, 1)].sort((x, y) => {
    const d = BigInt(y.price) - BigInt(x.price);
    return d !== 0n ? (d > 0n ? 1 : -1) : Number(x.rowId) - Number(y.rowId);
  });
  return both.slice(0, 1);
}
const byBalance = (list: any[] | undefined) =>
  Array.isArray(list) ? [...list].sort((x, y) => (BigInt(y.balance) > BigInt(x.balance) ? 1 : BigInt(y.balance) < BigInt(x.balance) ? -1 : x.owner < y.owner ? -1 : x.owner > y.owner ? 1 : 0)) : null;

SHAPES.push(
  {
    key: 'm',
    title: 'token detail page (owners, best ask and bid, last sale, 20 events)',
    ours: {
      query: `query TokenDetail($collection: Address!, $tokenId: Uint256!) {
  token(collection: $collection, tokenId: $tokenId) {
    tokenId collection { ${TOKEN.collection.join(' ')} } owners { owner balance }
    bestAsk { ${TOKEN.ask.join(' ')} } bestBid { ${TOKEN.bid.join(' ')} } listedAt
    lastSale { ${TOKEN.sale.join(' ')} }
    activity(first: ${TOKEN.events}) { edges { node { ${TOKEN.event.join(' ')} } } }
  }
}`,
    },
    vars: (p) => ({ collection: p.collection, tokenId: p.tokenId }),
    // seven root fields a PostGraphile client would send; the client takes the higher bid and computes listedAt
    peer: {
      query: `query TokenDetail($collection: String!, $tokenId: BigFloat!) {
  collection: collectionByAddress(address: $collection) { ${TOKEN.collection.join(' ')} }
  owners: allTokenBalances(condition: { collectionAddress: $collection, tokenId: $tokenId }, orderBy: [OWNER_ASC]) { nodes { owner balance } }
  ask: allOrders(condition: { collectionAddress: $collection, tokenId: $tokenId, isOrderAsk: true, live: true }, orderBy: [PRICE_ASC, ROW_ID_ASC], first: 1) { nodes { ${TOKEN.ask.join(' ')} startTime createdAt } }
  tokenBid: allOrders(condition: { collectionAddress: $collection, tokenId: $tokenId, isOrderAsk: false, live: true }, orderBy: [PRICE_DESC, ROW_ID_ASC], first: 1) { nodes { rowId ${TOKEN.bid.join(' ')} } }
  collectionBid: allOrders(condition: { collectionAddress: $collection, tokenId: null, isOrderAsk: false, live: true }, orderBy: [PRICE_DESC, ROW_ID_ASC], first: 1) { nodes { rowId ${TOKEN.bid.join(' ')} } }
  lastSale: allSales(condition: { collectionAddress: $collection, tokenId: $tokenId }, orderBy: [TIMESTAMP_DESC, ROW_ID_DESC], first: 1) { nodes { ${TOKEN.sale.join(' ')} } }
  activity: allMarketEvents(condition: { collectionAddress: $collection, tokenId: $tokenId }, orderBy: [ROW_ID_DESC], first: ${TOKEN.events}) { nodes { ${TOKEN.event.map((f) => PEER_EVENT[f] ?? f).join(' ')} } }
}`,
    },
    oursRows: (j) => {
      const t = j?.data?.token;
      if (!t) return null;
      return join(
        Array.isArray(t.owners) ? t.owners.map((o: any) => [String(o.owner), String(o.balance)]) : null,
        rows(t.bestAsk ? [t.bestAsk] : []),
        rows(t.bestBid ? [t.bestBid] : []),
        rows(t.lastSale ? [t.lastSale] : [], 'txHash'),
        rows(nodes(t.activity), 'eventId'),
      );
    },
    peerRows: (j) => {
      const d = j?.data;
      if (!d?.collection) return null;
      const owners = byBalance(d.owners?.nodes);
      return join(
        owners && owners.map((o: any) => [String(o.owner), String(o.balance)]),
        rows(d.ask?.nodes),
        rows(higherBid(d.tokenBid?.nodes, d.collectionBid?.nodes)),
        rows(d.lastSale?.nodes, 'txHash'),
        rows(d.activity?.nodes, 'rowId'),
      );
    },
    floor: tokenDetailFloor(TOKEN),
  },
  {
    key: 'n',
    title: 'wallet page (holdings valued at floor and best bid, offers received, open orders)',
    ours: {
      query: `query Wallet($address: Address!) {
  account(address: $address) {
    address
    holdings(first: ${WALLET.holdings}) { totalCount valueAtFloor valueAtBestBid edges { node { balance floorPrice bestBidPrice token { tokenId collectionAddress } } } }
    offersReceived(first: ${WALLET.offers}) { edges { node { ${WALLET.offer.join(' ')} } } }
    orders(first: ${WALLET.orders}, filter: { status: [VALID] }) { edges { node { ${WALLET.order.join(' ')} } } }
  }
}`,
    },
    vars: (p) => ({ address: p.holder }),
    peer: { none: "values holdings at each collection's floor and each token's best bid, and finds the offers a wallet can fill: computed by this service" },
    oursRows: (j) => {
      const a = j?.data?.account;
      if (!a) return null;
      return join(
        (nodes(a.holdings) as any[] | null)?.map((h: any) => [`${h?.token?.collectionAddress}:${h?.token?.tokenId}`, String(h?.floorPrice)]) ?? null,
        rows(nodes(a.offersReceived)),
        rows(nodes(a.orders)),
      );
    },
    floor: accountPageFloor(WALLET),
  },
);

/** The token metadata shapes' selections (o, p, q), written once for this service, PostGraphile and the floor. */
const GRID = { first: 50, ask: ['hash', 'price'] };
const PANEL_VALUE = ['value', 'tokenCount', 'sharePercent', 'listedCount', 'floorPrice', 'bestBidPrice'];
const TRAITS_ASK = ['hash', 'price'];
/** A token's traits as a client of PostGraphile orders them: document order (position), then trait type and value. */
const byPosition = (list: any[] | undefined) =>
  Array.isArray(list) ? [...list].sort((x, y) => x.position - y.position || (x.traitType < y.traitType ? -1 : x.traitType > y.traitType ? 1 : x.value < y.value ? -1 : x.value > y.value ? 1 : 0)) : null;

SHAPES.push(
  {
    key: 'o',
    title: 'token grid (50 cheapest listed tokens with two traits: name, image, rarity rank, best ask)',
    ours: {
      query: `query TokenGrid($collection: Address!, $traitA: String!, $valuesA: [String!]!, $traitB: String!, $valuesB: [String!]!) {
  tokens(collection: $collection, first: ${GRID.first}, sort: PRICE_ASC, filter: { listed: true, attributes: [{ traitType: $traitA, values: $valuesA }, { traitType: $traitB, values: $valuesB }] }) {
    edges { node { tokenId name image rarity { rank } bestAsk { ${GRID.ask.join(' ')} } } }
  }
}`,
    },
    vars: (p) => ({ collection: p.collection, traitA: p.traits[0]!.traitType, valuesA: p.traits[0]!.values, traitB: p.traits[1]!.traitType, valuesB: p.traits[1]!.values }),
    peer: {
      none: "a page of tokens (one row per token: its cheapest live listing) whose traits, rows of another table, meet two conditions: PostGraphile's condition filters a table by its own columns, and it has no token rows to page",
    },
    oursRows: (j) => (nodes(j?.data?.tokens) as any[] | null)?.map((n: any) => [String(n?.tokenId), String(n?.bestAsk?.price)]) ?? null,
    floor: tokenGridFloor(GRID.first, GRID.ask),
  },
  {
    key: 'p',
    title: "a collection's trait panel (every value: tokens, share, listed, floor, best bid)",
    ours: {
      query: `query TraitPanel($collection: Address!) {
  collection(address: $collection) { attributes { traitType kind valueCount values { ${PANEL_VALUE.join(' ')} } } }
}`,
    },
    vars: (p) => ({ collection: p.collection }),
    peer: { none: "each value's listed count, floor and best bid are computed from the live book over the tokens carrying it: no PostGraphile column or relation" },
    oursRows: (j) => {
      const types = j?.data?.collection?.attributes;
      return Array.isArray(types) ? types.flatMap((t: any) => (Array.isArray(t?.values) ? t.values : []).map((v: any) => [`${t.traitType}:${v?.value}`, String(v?.floorPrice)])) : null;
    },
    floor: traitPanelFloor(),
  },
  {
    key: 'q',
    title: 'token page with its traits (name, image, traits with counts, rarity, metadata status, best ask)',
    ours: {
      query: `query TokenTraits($collection: Address!, $tokenId: Uint256!) {
  token(collection: $collection, tokenId: $tokenId) {
    tokenId name image attributes { traitType value tokenCount } rarity { rank score } metadata { status } bestAsk { ${TRAITS_ASK.join(' ')} }
  }
}`,
    },
    vars: (p) => ({ collection: p.collection, tokenId: p.documentedTokenId }),
    // three root fields; the client puts the traits in document order
    peer: {
      query: `query TokenTraits($collection: String!, $tokenId: BigFloat!) {
  meta: tokenMetadatumByCollectionAddressAndTokenId(collectionAddress: $collection, tokenId: $tokenId) { name image status rarityRank rarityScore }
  attributes: allTokenAttributes(condition: { collectionAddress: $collection, tokenId: $tokenId }) { nodes { traitType value position traitValueByCollectionAddressAndTraitTypeAndValue { tokenCount } } }
  ask: allOrders(condition: { collectionAddress: $collection, tokenId: $tokenId, isOrderAsk: true, live: true }, orderBy: [PRICE_ASC, ROW_ID_ASC], first: 1) { nodes { ${TRAITS_ASK.join(' ')} } }
}`,
    },
    oursRows: (j) => {
      const t = j?.data?.token;
      if (!t || !Array.isArray(t.attributes)) return null;
      return join(
        t.attributes.map((a: any) => [`${a.traitType}:${a.value}`, String(a.tokenCount)]),
        rows(t.bestAsk ? [t.bestAsk] : []),
      );
    },
    peerRows: (j) => {
      const d = j?.data;
      const list = byPosition(d?.attributes?.nodes);
      if (!d?.meta || !list) return null;
      return join(
        list.map((a: any) => [`${a.traitType}:${a.value}`, String(a.traitValueByCollectionAddressAndTraitTypeAndValue?.tokenCount ?? 0)]),
        rows(d.ask?.nodes),
      );
    },
    floor: tokenTraitsFloor(TRAITS_ASK),
  },
);

export const shapeByKey = (key: string) => SHAPES.find((s) => s.key === key);
