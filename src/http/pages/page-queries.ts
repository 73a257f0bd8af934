// The GraphQL documents the pages run against the public API (POST /graphql), one per panel, so
// that each panel's "open in GraphiQL" link opens exactly the query that drew it. The page script
// receives them as data; test/http/pages.test.ts validates them against the schema.

/** How many rows the activity and sales panels show, and depth levels per side. */
export const PANEL_ROWS = 12;

export const PAGE_QUERIES = {
  collectionStats: `query CollectionStats($address: Address!) {
  collection(address: $address) {
    name
    symbol
    type
    isVerified
    logoURI
    listedCount
    topBid { priceEth }
    stats {
      floorPriceEth
      floorChange24h
      volume24hEth
      change24h
      volume7dEth
      volumeAllEth
      count24h
      countAll
      countOwners
      totalSupply
    }
  }
}
`,
  collectionSeries: `# Floor (at the end of each interval, wei) and volume (wei) per hour or day in [from, to)
query CollectionSeries($address: Address!, $resolution: SeriesResolution!, $from: UnixTime!, $to: UnixTime!) {
  collection(address: $address) {
    series(resolution: $resolution, from: $from, to: $to) { start floorPrice volume salesCount }
  }
}
`,
  collectionDepth: `query CollectionDepth($address: Address!, $levels: Int!) {
  collection(address: $address) {
    asks: depth(side: ASK, first: $levels) { levelCount orderCount levels { priceEth orderCount amount cumulativeAmount } }
    bids: depth(side: BID, first: $levels) { levelCount orderCount levels { priceEth orderCount amount cumulativeAmount } }
  }
}
`,
  collectionTokens: `# The cheapest listed tokens, with their images from this service's media origin
query CollectionTokens($address: Address!, $first: Int!) {
  tokens(collection: $address, first: $first, sort: PRICE_ASC, filter: { listed: true }) {
    edges { node { tokenId name image rarity { rank } bestAsk { priceEth } } }
  }
}
`,
  collectionActivity: `query CollectionActivity($address: Address!, $first: Int!) {
  activity(first: $first, filter: { collection: $address }) {
    edges { node { eventId type cause tokenId priceEth from to createdAt } }
  }
}
`,
  collectionSales: `query CollectionSales($address: Address!, $first: Int!) {
  sales(collection: $address, first: $first) {
    totalCount
    edges { node { timestamp priceEth tokenId buyer seller txHash } }
  }
}
`,
  topCollections: `# The collections with the most volume in the last 24 hours and their hourly floor since $since
query TopCollections($first: Int!, $since: UnixTime!, $to: UnixTime!) {
  collections(orderBy: VOLUME_24H, first: $first) {
    edges {
      node {
        name
        address
        logoURI
        stats { floorPriceEth volume24hEth change24h }
        series(resolution: HOUR, from: $since, to: $to) { start floorPrice }
      }
    }
  }
}
`,
} as const;

export type PageQueryName = keyof typeof PAGE_QUERIES;
