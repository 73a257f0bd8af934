// Each read type declared once: per GraphQL field, the columns its resolver reads (the resolver
// path's column plan, src/schema/order-read-plan.ts) and how PostgreSQL renders it as the final
// JSON text (./plan-query.ts), or, where SQL cannot, why it is left to its resolver. The Pothos
// resolvers in src/schema/ are the reference: test/read-engine/read-engine.test.ts compares the
// two byte for byte, and fails for a schema field declared nowhere here.
import { DEFAULT_COLLECTION_NAME } from '../domain/collection-input.js';
import type { CollectionColumn, OrderColumn } from '../services/order-page-sql.js';
import type { FieldRead, ReadType, ReadTypeName } from './read-type.js';
import { planCollectionStats } from './stats-reads.js';
import { highestOldestSql } from '../db/highest-oldest-sql.js';
import { ACCOUNT_HOLDING_TYPE, ACCOUNT_TYPE } from './account-reads.js';
import { COLLECTION_DEPTH, TOKEN_TYPE } from './token-reads.js';
import { COLLECTION_ATTRIBUTES } from './metadata-reads.js';
import { LISTING_REWARD_TYPE } from './listing-reward-reads.js';
import { INDEXER_STATUS_TYPE } from './indexer-status-reads.js';
import { ORDER_FILLABILITY } from './fillability-reads.js';
import { shownStatusSql } from './status-sql.js';
import { jsonBoolean, jsonEther, jsonGlobalId, jsonInt, jsonLiteral, jsonNullableString, jsonString, jsonUnixTime } from './json-sql.js';
import { HOSTED_VARIANT, hostedUrlSql } from '../services/hosted-media-sql.js';

const leaf = <C extends string>(columns: readonly C[], json: (t: string, now: () => string) => string): FieldRead<C> => ({ kind: 'leaf', columns, json });

export const ORDER_TYPE: ReadType<OrderColumn> = {
  table: 'orders',
  refetch: { field: 'order', arg: 'hash', key: (t) => `${t}.hash` },
  fields: {
    id: leaf(['hash'], (t) => jsonGlobalId('Order', `${t}.hash`)),
    hash: leaf(['hash'], (t) => jsonString(`${t}.hash`)),
    collectionAddress: leaf(['collectionAddress'], (t) => jsonString(`${t}.collection_address`)),
    tokenId: leaf(['tokenId'], (t) => jsonNullableString(`${t}.token_id::text`)),
    isOrderAsk: leaf(['isOrderAsk'], (t) => jsonBoolean(`${t}.is_order_ask`)),
    signer: leaf(['signer'], (t) => jsonString(`${t}.signer`)),
    strategy: leaf(['strategy'], (t) => jsonString(`${t}.strategy`)),
    currencyAddress: leaf(['currencyAddress'], (t) => jsonString(`${t}.currency_address`)),
    amount: leaf(['amount'], (t) => jsonString(`${t}.amount::text`)),
    price: leaf(['price'], (t) => jsonString(`${t}.price::text`)),
    priceEth: leaf(['price'], (t) => jsonEther(`${t}.price`)),
    nonce: leaf(['nonce'], (t) => jsonString(`${t}.nonce::text`)),
    startTime: leaf(['startTime'], (t) => jsonUnixTime(`${t}.start_time`)),
    endTime: leaf(['endTime'], (t) => jsonUnixTime(`${t}.end_time`)),
    minPercentageToAsk: leaf(['minPercentageToAsk'], (t) => jsonInt(`${t}.min_percentage_to_ask`)),
    // paramsForResponse (src/domain/order-params.ts): "0x" (no params) reads as ""
    params: leaf(['params'], (t) => jsonString(`CASE WHEN ${t}.params = '0x' THEN '' ELSE ${t}.params END`)),
    // effectiveStatus (src/domain/order-status.ts): chain-final stays, else EXPIRED past endTime
    status: leaf(['status', 'endTime'], (t, now) => `to_json(${shownStatusSql(t, now())})::text`),
    signature: leaf(['signature'], (t) => jsonString(`${t}.signature`)),
    v: leaf(['v'], (t) => jsonInt(`${t}.v`)),
    r: leaf(['r'], (t) => jsonString(`${t}.r`)),
    s: leaf(['s'], (t) => jsonString(`${t}.s`)),
    collection: {
      kind: 'object',
      type: 'Collection',
      columns: ['collectionAddress'],
      from: (t, a) => `FROM collections ${a} WHERE ${a}.address = ${t}.collection_address`,
      nullable: false,
    },
    fillability: ORDER_FILLABILITY,
  },
};

const collectionName = (t: string) => `COALESCE(${t}.name, ${`'${DEFAULT_COLLECTION_NAME.replace(/'/g, "''")}'`})`;
const nullableText = (column: string) => (t: string) => jsonNullableString(`${t}.${column}`);

export const COLLECTION_TYPE: ReadType<CollectionColumn> = {
  table: 'collections',
  refetch: { field: 'collection', arg: 'address', key: (t) => `${t}.address` },
  fields: {
    id: leaf(['address'], (t) => jsonGlobalId('Collection', `${t}.address`)),
    address: leaf(['address'], (t) => jsonString(`${t}.address`)),
    owner: leaf(['owner'], (t) => jsonString(`${t}.owner`)),
    setter: leaf(['setter'], nullableText('setter')),
    admin: leaf(['admin'], nullableText('admin')),
    name: leaf(['name'], (t) => jsonString(collectionName(t))),
    description: leaf(['description'], nullableText('description')),
    symbol: leaf(['symbol'], nullableText('symbol')),
    type: leaf(['type'], (t) => jsonString(`${t}.type::text`)),
    websiteLink: leaf(['websiteLink'], nullableText('website_link')),
    alphaLink: leaf(['alphaLink'], nullableText('alpha_link')),
    bravoLink: leaf(['bravoLink'], nullableText('bravo_link')),
    charlieLink: leaf(['charlieLink'], nullableText('charlie_link')),
    deltaLink: leaf(['deltaLink'], nullableText('delta_link')),
    echoLink: leaf(['echoLink'], nullableText('echo_link')),
    foxtrotLink: leaf(['foxtrotLink'], nullableText('foxtrot_link')),
    isVerified: leaf(['isVerified'], (t) => jsonBoolean(`${t}.is_verified`)),
    isExplicit: leaf(['isExplicit'], (t) => jsonBoolean(`${t}.is_explicit`)),
    // our own media URL once the image is stored; the admin's URL stays readable as the source
    logoURI: { kind: 'planned', columns: ['logoURI'], plan: (p, _n, _a, t) => jsonNullableString(hostedUrlSql(`${t}.logo_uri`, HOSTED_VARIANT.logo, p.mediaBaseUrl)) },
    bannerURI: { kind: 'planned', columns: ['bannerURI'], plan: (p, _n, _a, t) => jsonNullableString(hostedUrlSql(`${t}.banner_uri`, HOSTED_VARIANT.banner, p.mediaBaseUrl)) },
    logoSourceURI: leaf(['logoURI'], nullableText('logo_uri')),
    bannerSourceURI: leaf(['bannerURI'], nullableText('banner_uri')),
    orders: { kind: 'orders', columns: ['address'], pin: (t, o) => `${o}.collection_address = ${t}.address` },
    // Same liveness rule as the floor (src/services/collection-market.ts): started, not ended, VALID.
    topBid: {
      kind: 'object',
      type: 'Order',
      columns: ['address'],
      from: (t, a, now) =>
        `FROM orders ${a} ` +
        highestOldestSql(a, (x) => `${x}.collection_address = ${t}.address AND NOT ${x}.is_order_ask AND ${x}.status = 'VALID' AND ${x}.start_time <= ${now()} AND ${x}.end_time >= ${now()}`),
      nullable: true,
    },
    listedCount: leaf(['address'], (t, now) =>
      `(SELECT count(DISTINCT l.token_id) FROM orders l WHERE l.collection_address = ${t}.address AND l.is_order_ask ` +
      `AND l.status = 'VALID' AND l.start_time <= ${now()} AND l.end_time >= ${now()})::text`),
    // only the selected statistics, from the rollups at the edges they need (./stats-reads.ts)
    stats: { kind: 'planned', columns: ['address'], plan: (p, nodes, _args, t) => planCollectionStats(p, nodes, t) },
    series: { kind: 'resolver', columns: ['address'], reason: 'intervals filled from the rollups and the floor history (src/services/sale-history.ts)' },
    depth: COLLECTION_DEPTH,
    attributes: COLLECTION_ATTRIBUTES,
    activity: { kind: 'planned', columns: ['address'], plan: (p, nodes, args, t) => p.activityConnection(nodes, args, (m) => `${m}.collection_address = ${t}.address`, true) },
  },
};

/** A sale (src/schema/discovery.ts); the table has no columns list of its own in the resolver path. */
export const SALE_TYPE: ReadType = {
  table: 'sales',
  fields: {
    id: leaf([], (t) => jsonGlobalId('Sale', `${t}.tx_hash || ':' || ${t}.log_index`)),
    collectionAddress: leaf([], (t) => jsonString(`${t}.collection_address`)),
    collection: { kind: 'object', type: 'Collection', columns: [], from: (t, a) => `FROM collections ${a} WHERE ${a}.address = ${t}.collection_address`, nullable: false },
    tokenId: leaf([], (t) => jsonString(`${t}.token_id::text`)),
    amount: leaf([], (t) => jsonString(`${t}.amount::text`)),
    price: leaf([], (t) => jsonString(`${t}.price::text`)),
    priceEth: leaf([], (t) => jsonEther(`${t}.price`)),
    currencyAddress: leaf([], (t) => jsonString(`${t}.currency_address`)),
    buyer: leaf([], (t) => jsonString(`${t}.buyer`)),
    seller: leaf([], (t) => jsonString(`${t}.seller`)),
    orderHash: leaf([], nullableText('order_hash')),
    isTakerAsk: leaf([], (t) => jsonBoolean(`${t}.is_taker_ask`)),
    blockNumber: leaf([], (t) => jsonString(`${t}.block_number::text`)),
    txHash: leaf([], (t) => jsonString(`${t}.tx_hash`)),
    logIndex: leaf([], (t) => jsonInt(`${t}.log_index`)),
    // Math.floor(ms / 1000) of a millisecond timestamp
    timestamp: leaf([], (t) => `floor(extract(epoch FROM ${t}.timestamp))::bigint::text`),
  },
};

/** An event of the market event log (src/schema/activity.ts); every field renders. */
export const MARKET_EVENT_TYPE: ReadType = {
  table: 'market_events',
  fields: {
    id: leaf([], (t) => jsonGlobalId('MarketEvent', `${t}.id::text`)),
    eventId: leaf([], (t) => jsonString(`${t}.id::text`)),
    type: leaf([], (t) => jsonString(`${t}.type::text`)),
    cause: leaf([], (t) => jsonNullableString(`${t}.cause::text`)),
    collectionAddress: leaf([], (t) => jsonString(`${t}.collection_address`)),
    collection: { kind: 'object', type: 'Collection', columns: [], from: (t, a) => `FROM collections ${a} WHERE ${a}.address = ${t}.collection_address`, nullable: false },
    tokenId: leaf([], (t) => jsonNullableString(`${t}.token_id::text`)),
    orderHash: leaf([], nullableText('order_hash')),
    order: { kind: 'object', type: 'Order', columns: [], from: (t, a) => `FROM orders ${a} WHERE ${a}.hash = ${t}.order_hash`, nullable: true },
    from: leaf([], nullableText('from_address')),
    to: leaf([], nullableText('to_address')),
    price: leaf([], (t) => jsonNullableString(`${t}.price::text`)),
    priceEth: leaf([], (t) => `COALESCE(${jsonEther(`${t}.price`)}, 'null')`),
    amount: leaf([], (t) => jsonNullableString(`${t}.amount::text`)),
    oldStatus: leaf([], (t) => jsonNullableString(`${t}.old_status::text`)),
    newStatus: leaf([], (t) => jsonNullableString(`${t}.new_status::text`)),
    blockNumber: leaf([], (t) => jsonNullableString(`${t}.block_number::text`)),
    txHash: leaf([], nullableText('tx_hash')),
    logIndex: leaf([], (t) => `COALESCE((${t}.log_index)::text, 'null')`),
    retractsEventId: leaf([], (t) => jsonNullableString(`${t}.retracts_id::text`)),
    traitType: leaf([], nullableText('trait_type')),
    traitValue: leaf([], nullableText('trait_value')),
    createdAt: leaf([], (t) => `floor(extract(epoch FROM ${t}.created_at))::bigint::text`),
  },
};

export const READ_TYPES: Record<ReadTypeName, ReadType> = { Order: ORDER_TYPE, Collection: COLLECTION_TYPE, Sale: SALE_TYPE, MarketEvent: MARKET_EVENT_TYPE, Token: TOKEN_TYPE, Account: ACCOUNT_TYPE, AccountHolding: ACCOUNT_HOLDING_TYPE, ListingRewardCollection: LISTING_REWARD_TYPE, IndexerStatus: INDEXER_STATUS_TYPE };

/** The GraphQL __typename of a read type, as JSON text. */
export const typenameJson = (name: string) => jsonLiteral(name);
