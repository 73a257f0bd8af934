// The queries the peer benchmark sends: this service's nested query, PostGraphile's equivalent
// over the same tables, the hand-written SQL floor that builds the same JSON, the collection
// page and the REST route.
import { DEFAULT_COLLECTION_NAME } from '../src/domain/collection-input.js';
import { LIVE_STATUSES } from '../src/domain/order-status.js';

/** "The 50 cheapest VALID asks of a collection, each with its collection (name, symbol, type, verified)". */
export const NESTED_QUERY = `query Nested($collection: Address!) {
  orders(first: 50, sort: PRICE_ASC, filter: { collection: $collection, isOrderAsk: true, status: [VALID] }) {
    edges { node { hash tokenId price endTime status collection { name symbol type isVerified } } }
  }
}`;

/**
 * PostGraphile's equivalent. VALID means stored VALID and not past endTime (spec 3), which a
 * `condition` cannot say, so the peer reads a view with that rule (PostgreSQL inlines it; a
 * smart comment gives it the primary key and the collection relation of the table).
 */
export const PEER_SETUP_SQL = `
CREATE VIEW bench_live_orders AS
  SELECT * FROM orders WHERE status = 'VALID' AND end_time >= extract(epoch FROM now())::bigint;
COMMENT ON VIEW bench_live_orders IS E'@primaryKey id\\n@foreignKey (collection_address) references collections (address)';`;

export const POSTGRAPHILE_QUERY = `query Nested($collection: String!) {
  allBenchLiveOrders(condition: { collectionAddress: $collection, isOrderAsk: true }, orderBy: [PRICE_ASC, PRIMARY_KEY_ASC], first: 50) {
    nodes { hash tokenId price endTime status collectionByCollectionAddress { name symbol type isVerified } }
  }
}`;

const LIVE = LIVE_STATUSES.map((s) => `'${s}'`).join(', ');

/** The floor: one statement, the response JSON built in PostgreSQL ($1 collection, $2 now in seconds). */
export const FLOOR_NESTED_SQL = `
SELECT json_build_object('data', json_build_object('orders', json_build_object('edges', COALESCE(json_agg(
  json_build_object('node', json_build_object(
    'hash', p.hash, 'tokenId', p.token_id::text, 'price', p.price::text, 'endTime', p.end_time,
    'status', CASE WHEN p.status::text IN (${LIVE}) AND p.end_time < $2 THEN 'EXPIRED' ELSE p.status::text END,
    'collection', json_build_object('name', COALESCE(c.name, '${DEFAULT_COLLECTION_NAME.replace(/'/g, "''")}'), 'symbol', c.symbol, 'type', c.type, 'isVerified', c.is_verified)))
  ORDER BY p.price, p.id), '[]'::json))))::text AS body
FROM (SELECT o.id, o.hash, o.token_id, o.price, o.end_time, o.status, o.collection_address FROM orders o
       WHERE o.collection_address = $1 AND o.is_order_ask AND o.status = 'VALID' AND o.end_time >= $2
       ORDER BY o.price, o.id LIMIT 50) p
JOIN collections c ON c.address = p.collection_address`;

/** The collection page: collection + stats + orders + listing rewards, in one request. */
export const PAGE_QUERY = `query Page($collection: Address!) {
  collection(address: $collection) {
    address name symbol type isVerified logoURI
    stats { floorPrice marketCap countOwners totalSupply volume24h change24h volume7d count7d countAll }
    orders(first: 20, sort: PRICE_ASC, filter: { isOrderAsk: true, status: [VALID] }) {
      edges { node { hash tokenId price endTime status } }
      pageInfo { hasNextPage endCursor }
    }
  }
  listingRewards { points volume24hGlobal floorGlobal collection { address name } }
}`;

export const restOrdersPath = (collection: string) =>
  `/api/v1/orders?collection=${collection}&isOrderAsk=true&status[]=VALID&sort=PRICE_ASC&pagination[first]=20`;
