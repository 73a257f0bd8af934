// The read requests the benches share: the order book page (bench/peer-shapes.ts shape a), the
// collection page (shape f) and the REST route (shape j). The rest of the peer bench's mix, with
// PostGraphile's documents and the SQL floor, is in bench/peer-shapes.ts.

/** "The 50 cheapest VALID asks of a collection, each with its collection (name, symbol, type, verified)". */
export const NESTED_QUERY = `query Nested($collection: Address!) {
  orders(first: 50, sort: PRICE_ASC, filter: { collection: $collection, isOrderAsk: true, status: [VALID] }) {
    edges { node { hash tokenId price endTime status collection { name symbol type isVerified } } }
  }
}`;

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
