// The tabs GraphiQL opens with (when the browser has no saved tabs): one question per tab that
// an analyst or frontend developer asks first, answerable on the demo data. A tab about one
// collection names its page with charts; ORIGIN becomes this service's origin when GraphiQL is
// served (./graphiql.ts), since the editor makes only absolute URLs clickable.
import { DEMO_COLLECTION } from '../../demo/demo-addresses.js';

export const ORIGIN = '{origin}';
const pageOf = (address: string) => `${ORIGIN}/collections/${address}`;

export const GRAPHIQL_TABS: { query: string; variables?: string }[] = [
  {
    query: `# The cheapest valid listings, with their collection's stats.
query CheapestListings {
  orders(first: 5, sort: PRICE_ASC, filter: { isOrderAsk: true, status: [VALID] }) {
    edges {
      node {
        hash
        price
        tokenId
        status
        collection { name type stats { floorPrice volume7d count7d } }
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}
`,
  },
  {
    query: `# One collection page: the collection, its statistics and its cheapest listings.
# With charts (Ctrl+click): ${pageOf(DEMO_COLLECTION)}
query CollectionPage($address: Address!) {
  collection(address: $address) {
    name
    type
    stats { floorPrice floorChange24h volume24h change24h volume7d countAll totalSupply }
    orders(first: 10, sort: PRICE_ASC, filter: { isOrderAsk: true, status: [VALID] }) {
      edges { node { hash tokenId price endTime signer } }
    }
  }
}
`,
    variables: JSON.stringify({ address: DEMO_COLLECTION }, null, 2),
  },
  {
    query: `# Discovery: the collections with the most volume in the last 24 hours, their top bid,
# how many tokens are listed, and their daily volume, sales and floor over the last week.
# Each collection has a page with charts: ${pageOf('<address>')}
query TopCollections($since: UnixTime!) {
  collections(orderBy: VOLUME_24H, first: 5) {
    totalCount
    edges {
      node {
        name
        address
        listedCount
        stats { floorPrice volume24h change24h }
        topBid { price signer }
        series(resolution: DAY, from: $since) { start volume salesCount floorPrice }
      }
    }
  }
}
`,
    variables: JSON.stringify({ since: Math.floor(Date.now() / 1000) - 7 * 86_400 }, null, 2),
  },
  {
    query: `# The latest sales of one collection (from/to: unix seconds; to is exclusive).
# Its page with charts (Ctrl+click): ${pageOf(DEMO_COLLECTION)}
query LatestSales($collection: Address!) {
  sales(collection: $collection, first: 10) {
    totalCount
    edges { node { timestamp price tokenId buyer seller txHash } }
    pageInfo { hasNextPage endCursor }
  }
}
`,
    variables: JSON.stringify({ collection: DEMO_COLLECTION }, null, 2),
  },
  {
    query: `# Listing rewards: the top collections by global 24h volume and their points.
query ListingRewards {
  listingRewards { points volume24hGlobal floorGlobal collection { name address } }
}
`,
  },
];
