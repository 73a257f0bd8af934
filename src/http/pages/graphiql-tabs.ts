// The tabs GraphiQL opens with (when the browser has no saved tabs): one question per tab that
// an analyst or frontend developer asks first, answerable on the demo data.
import { DEMO_COLLECTION } from './demo-addresses.js';

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
    query: `# Listing rewards: the top collections by global 24h volume and their points.
query ListingRewards {
  listingRewards { points volume24hGlobal floorGlobal collection { name address } }
}
`,
  },
];
