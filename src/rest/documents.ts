// The GraphQL documents behind the REST routes. Each selects exactly the fields of the v1 JSON
// shapes (spec 2.2, 2.6, 2.7, 2.8), so a REST response is the GraphQL result re-wrapped.
import { graphql } from '../gql/index.js';

export const OrderFieldsFragment = graphql(`
  fragment RestOrderFields on Order {
    hash
    collectionAddress
    tokenId
    isOrderAsk
    signer
    strategy
    currencyAddress
    amount
    price
    nonce
    startTime
    endTime
    minPercentageToAsk
    params
    status
    signature
    r
    s
    v
  }
`);

export const CollectionFieldsFragment = graphql(`
  fragment RestCollectionFields on Collection {
    address
    owner
    setter
    admin
    name
    description
    symbol
    type
    websiteLink
    alphaLink
    bravoLink
    charlieLink
    deltaLink
    echoLink
    foxtrotLink
    isVerified
    isExplicit
    logoURI
    bannerURI
  }
`);

export const RestOrdersDocument = graphql(`
  query RestOrders($filter: OrderFilterInput, $sort: OrderSort, $first: Int, $after: String) {
    orders(filter: $filter, sort: $sort, first: $first, after: $after) {
      edges {
        node {
          ...RestOrderFields
        }
      }
    }
  }
`);

export const RestNonceDocument = graphql(`
  query RestNonce($address: Address!) {
    nonce(address: $address)
  }
`);

export const RestCollectionDocument = graphql(`
  query RestCollection($address: Address!) {
    collection(address: $address) {
      ...RestCollectionFields
    }
  }
`);

export const RestCollectionStatsDocument = graphql(`
  query RestCollectionStats($address: Address!) {
    collectionStats(address: $address) {
      address
      countOwners
      totalSupply
      floorPrice
      floorChange24h
      floorChange7d
      floorChange30d
      marketCap
      volumeAll
      averageAll
      countAll
      volume24h
      average24h
      count24h
      change24h
      volume7d
      average7d
      count7d
      change7d
      volume1m
      average1m
      count1m
      change1m
      volume3m
      average3m
      count3m
      change3m
      volume6m
      average6m
      count6m
      change6m
      volume1y
      average1y
      count1y
      change1y
    }
  }
`);

export const RestListingRewardsDocument = graphql(`
  query RestListingRewards {
    listingRewards {
      collection {
        ...RestCollectionFields
      }
      volume24hGlobal
      points
      floorGlobal
    }
  }
`);
