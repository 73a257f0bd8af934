/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  fragment RestOrderFields on Order {\n    hash\n    collectionAddress\n    tokenId\n    isOrderAsk\n    signer\n    strategy\n    currencyAddress\n    amount\n    price\n    nonce\n    startTime\n    endTime\n    minPercentageToAsk\n    params\n    status\n    signature\n    r\n    s\n    v\n  }\n": typeof types.RestOrderFieldsFragmentDoc,
    "\n  fragment RestCollectionFields on Collection {\n    address\n    owner\n    setter\n    admin\n    name\n    description\n    symbol\n    type\n    websiteLink\n    alphaLink\n    bravoLink\n    charlieLink\n    deltaLink\n    echoLink\n    foxtrotLink\n    isVerified\n    isExplicit\n    logoURI\n    bannerURI\n  }\n": typeof types.RestCollectionFieldsFragmentDoc,
    "\n  query RestOrders($filter: OrderFilterInput, $sort: OrderSort, $first: Int, $after: String) {\n    orders(filter: $filter, sort: $sort, first: $first, after: $after) {\n      edges {\n        node {\n          ...RestOrderFields\n        }\n      }\n    }\n  }\n": typeof types.RestOrdersDocument,
    "\n  query RestNonce($address: Address!) {\n    nonce(address: $address)\n  }\n": typeof types.RestNonceDocument,
    "\n  query RestCollection($address: Address!) {\n    collection(address: $address) {\n      ...RestCollectionFields\n    }\n  }\n": typeof types.RestCollectionDocument,
    "\n  query RestCollectionStats($address: Address!) {\n    collectionStats(address: $address) {\n      address\n      countOwners\n      totalSupply\n      floorPrice\n      floorChange24h\n      floorChange7d\n      floorChange30d\n      marketCap\n      volumeAll\n      averageAll\n      countAll\n      volume24h\n      average24h\n      count24h\n      change24h\n      volume7d\n      average7d\n      count7d\n      change7d\n      volume1m\n      average1m\n      count1m\n      change1m\n      volume3m\n      average3m\n      count3m\n      change3m\n      volume6m\n      average6m\n      count6m\n      change6m\n      volume1y\n      average1y\n      count1y\n      change1y\n    }\n  }\n": typeof types.RestCollectionStatsDocument,
    "\n  query RestListingRewards {\n    listingRewards {\n      collection {\n        ...RestCollectionFields\n      }\n      volume24hGlobal\n      points\n      floorGlobal\n    }\n  }\n": typeof types.RestListingRewardsDocument,
    "\n  query RestIndexerStatus {\n    indexerStatus {\n      chainId\n      headBlock\n      headTimestamp\n      indexedBlock\n      indexedBlockTimestamp\n      confirmations\n      lagBlocks\n      lagSeconds\n      lastEventBlock\n      lastEventTimestamp\n      updatedAt\n      running\n      holdsLease\n    }\n  }\n": typeof types.RestIndexerStatusDocument,
    "\n  query Fulfill($hash: Hash!, $taker: Address!, $tokenId: Uint256, $payWith: PayWith) {\n    fulfillment(hash: $hash, taker: $taker, tokenId: $tokenId, payWith: $payWith) {\n      orderHash blockNumber function ready\n      takerOrder { isOrderAsk taker price tokenId minPercentageToAsk params }\n      transaction { to data value }\n      steps { code message transaction { to data value } }\n    }\n  }\n": typeof types.FulfillDocument,
    "\n  query NestedOrders($first: Int!) {\n    orders(first: $first, sort: NEWEST) {\n      edges {\n        cursor\n        node {\n          hash\n          price\n          status\n          collectionAddress\n          collection {\n            address\n            name\n            stats {\n              floorPrice\n              volume24h\n              countAll\n              change7d\n            }\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.NestedOrdersDocument,
    "\n  query CollectionsPage($a: Address!, $b: Address!, $first: Int!) {\n    a: collection(address: $a) {\n      name\n      stats { volumeAll }\n      orders(first: $first, filter: { isOrderAsk: true }, sort: PRICE_ASC) {\n        edges { node { hash price collection { name } } }\n      }\n    }\n    b: collection(address: $b) {\n      name\n      stats { volumeAll }\n      orders(first: $first, sort: NEWEST) {\n        edges { node { hash collection { symbol } } }\n      }\n    }\n  }\n": typeof types.CollectionsPageDocument,
    "\n  query ValidateMakerOrder($input: MakerOrderInput!) {\n    validateOrder(input: $input) { hash recoveredSigner valid problems { code field message } }\n  }\n": typeof types.ValidateMakerOrderDocument,
};
const documents: Documents = {
    "\n  fragment RestOrderFields on Order {\n    hash\n    collectionAddress\n    tokenId\n    isOrderAsk\n    signer\n    strategy\n    currencyAddress\n    amount\n    price\n    nonce\n    startTime\n    endTime\n    minPercentageToAsk\n    params\n    status\n    signature\n    r\n    s\n    v\n  }\n": types.RestOrderFieldsFragmentDoc,
    "\n  fragment RestCollectionFields on Collection {\n    address\n    owner\n    setter\n    admin\n    name\n    description\n    symbol\n    type\n    websiteLink\n    alphaLink\n    bravoLink\n    charlieLink\n    deltaLink\n    echoLink\n    foxtrotLink\n    isVerified\n    isExplicit\n    logoURI\n    bannerURI\n  }\n": types.RestCollectionFieldsFragmentDoc,
    "\n  query RestOrders($filter: OrderFilterInput, $sort: OrderSort, $first: Int, $after: String) {\n    orders(filter: $filter, sort: $sort, first: $first, after: $after) {\n      edges {\n        node {\n          ...RestOrderFields\n        }\n      }\n    }\n  }\n": types.RestOrdersDocument,
    "\n  query RestNonce($address: Address!) {\n    nonce(address: $address)\n  }\n": types.RestNonceDocument,
    "\n  query RestCollection($address: Address!) {\n    collection(address: $address) {\n      ...RestCollectionFields\n    }\n  }\n": types.RestCollectionDocument,
    "\n  query RestCollectionStats($address: Address!) {\n    collectionStats(address: $address) {\n      address\n      countOwners\n      totalSupply\n      floorPrice\n      floorChange24h\n      floorChange7d\n      floorChange30d\n      marketCap\n      volumeAll\n      averageAll\n      countAll\n      volume24h\n      average24h\n      count24h\n      change24h\n      volume7d\n      average7d\n      count7d\n      change7d\n      volume1m\n      average1m\n      count1m\n      change1m\n      volume3m\n      average3m\n      count3m\n      change3m\n      volume6m\n      average6m\n      count6m\n      change6m\n      volume1y\n      average1y\n      count1y\n      change1y\n    }\n  }\n": types.RestCollectionStatsDocument,
    "\n  query RestListingRewards {\n    listingRewards {\n      collection {\n        ...RestCollectionFields\n      }\n      volume24hGlobal\n      points\n      floorGlobal\n    }\n  }\n": types.RestListingRewardsDocument,
    "\n  query RestIndexerStatus {\n    indexerStatus {\n      chainId\n      headBlock\n      headTimestamp\n      indexedBlock\n      indexedBlockTimestamp\n      confirmations\n      lagBlocks\n      lagSeconds\n      lastEventBlock\n      lastEventTimestamp\n      updatedAt\n      running\n      holdsLease\n    }\n  }\n": types.RestIndexerStatusDocument,
    "\n  query Fulfill($hash: Hash!, $taker: Address!, $tokenId: Uint256, $payWith: PayWith) {\n    fulfillment(hash: $hash, taker: $taker, tokenId: $tokenId, payWith: $payWith) {\n      orderHash blockNumber function ready\n      takerOrder { isOrderAsk taker price tokenId minPercentageToAsk params }\n      transaction { to data value }\n      steps { code message transaction { to data value } }\n    }\n  }\n": types.FulfillDocument,
    "\n  query NestedOrders($first: Int!) {\n    orders(first: $first, sort: NEWEST) {\n      edges {\n        cursor\n        node {\n          hash\n          price\n          status\n          collectionAddress\n          collection {\n            address\n            name\n            stats {\n              floorPrice\n              volume24h\n              countAll\n              change7d\n            }\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.NestedOrdersDocument,
    "\n  query CollectionsPage($a: Address!, $b: Address!, $first: Int!) {\n    a: collection(address: $a) {\n      name\n      stats { volumeAll }\n      orders(first: $first, filter: { isOrderAsk: true }, sort: PRICE_ASC) {\n        edges { node { hash price collection { name } } }\n      }\n    }\n    b: collection(address: $b) {\n      name\n      stats { volumeAll }\n      orders(first: $first, sort: NEWEST) {\n        edges { node { hash collection { symbol } } }\n      }\n    }\n  }\n": types.CollectionsPageDocument,
    "\n  query ValidateMakerOrder($input: MakerOrderInput!) {\n    validateOrder(input: $input) { hash recoveredSigner valid problems { code field message } }\n  }\n": types.ValidateMakerOrderDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment RestOrderFields on Order {\n    hash\n    collectionAddress\n    tokenId\n    isOrderAsk\n    signer\n    strategy\n    currencyAddress\n    amount\n    price\n    nonce\n    startTime\n    endTime\n    minPercentageToAsk\n    params\n    status\n    signature\n    r\n    s\n    v\n  }\n"): (typeof documents)["\n  fragment RestOrderFields on Order {\n    hash\n    collectionAddress\n    tokenId\n    isOrderAsk\n    signer\n    strategy\n    currencyAddress\n    amount\n    price\n    nonce\n    startTime\n    endTime\n    minPercentageToAsk\n    params\n    status\n    signature\n    r\n    s\n    v\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment RestCollectionFields on Collection {\n    address\n    owner\n    setter\n    admin\n    name\n    description\n    symbol\n    type\n    websiteLink\n    alphaLink\n    bravoLink\n    charlieLink\n    deltaLink\n    echoLink\n    foxtrotLink\n    isVerified\n    isExplicit\n    logoURI\n    bannerURI\n  }\n"): (typeof documents)["\n  fragment RestCollectionFields on Collection {\n    address\n    owner\n    setter\n    admin\n    name\n    description\n    symbol\n    type\n    websiteLink\n    alphaLink\n    bravoLink\n    charlieLink\n    deltaLink\n    echoLink\n    foxtrotLink\n    isVerified\n    isExplicit\n    logoURI\n    bannerURI\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RestOrders($filter: OrderFilterInput, $sort: OrderSort, $first: Int, $after: String) {\n    orders(filter: $filter, sort: $sort, first: $first, after: $after) {\n      edges {\n        node {\n          ...RestOrderFields\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query RestOrders($filter: OrderFilterInput, $sort: OrderSort, $first: Int, $after: String) {\n    orders(filter: $filter, sort: $sort, first: $first, after: $after) {\n      edges {\n        node {\n          ...RestOrderFields\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RestNonce($address: Address!) {\n    nonce(address: $address)\n  }\n"): (typeof documents)["\n  query RestNonce($address: Address!) {\n    nonce(address: $address)\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RestCollection($address: Address!) {\n    collection(address: $address) {\n      ...RestCollectionFields\n    }\n  }\n"): (typeof documents)["\n  query RestCollection($address: Address!) {\n    collection(address: $address) {\n      ...RestCollectionFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RestCollectionStats($address: Address!) {\n    collectionStats(address: $address) {\n      address\n      countOwners\n      totalSupply\n      floorPrice\n      floorChange24h\n      floorChange7d\n      floorChange30d\n      marketCap\n      volumeAll\n      averageAll\n      countAll\n      volume24h\n      average24h\n      count24h\n      change24h\n      volume7d\n      average7d\n      count7d\n      change7d\n      volume1m\n      average1m\n      count1m\n      change1m\n      volume3m\n      average3m\n      count3m\n      change3m\n      volume6m\n      average6m\n      count6m\n      change6m\n      volume1y\n      average1y\n      count1y\n      change1y\n    }\n  }\n"): (typeof documents)["\n  query RestCollectionStats($address: Address!) {\n    collectionStats(address: $address) {\n      address\n      countOwners\n      totalSupply\n      floorPrice\n      floorChange24h\n      floorChange7d\n      floorChange30d\n      marketCap\n      volumeAll\n      averageAll\n      countAll\n      volume24h\n      average24h\n      count24h\n      change24h\n      volume7d\n      average7d\n      count7d\n      change7d\n      volume1m\n      average1m\n      count1m\n      change1m\n      volume3m\n      average3m\n      count3m\n      change3m\n      volume6m\n      average6m\n      count6m\n      change6m\n      volume1y\n      average1y\n      count1y\n      change1y\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RestListingRewards {\n    listingRewards {\n      collection {\n        ...RestCollectionFields\n      }\n      volume24hGlobal\n      points\n      floorGlobal\n    }\n  }\n"): (typeof documents)["\n  query RestListingRewards {\n    listingRewards {\n      collection {\n        ...RestCollectionFields\n      }\n      volume24hGlobal\n      points\n      floorGlobal\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RestIndexerStatus {\n    indexerStatus {\n      chainId\n      headBlock\n      headTimestamp\n      indexedBlock\n      indexedBlockTimestamp\n      confirmations\n      lagBlocks\n      lagSeconds\n      lastEventBlock\n      lastEventTimestamp\n      updatedAt\n      running\n      holdsLease\n    }\n  }\n"): (typeof documents)["\n  query RestIndexerStatus {\n    indexerStatus {\n      chainId\n      headBlock\n      headTimestamp\n      indexedBlock\n      indexedBlockTimestamp\n      confirmations\n      lagBlocks\n      lagSeconds\n      lastEventBlock\n      lastEventTimestamp\n      updatedAt\n      running\n      holdsLease\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Fulfill($hash: Hash!, $taker: Address!, $tokenId: Uint256, $payWith: PayWith) {\n    fulfillment(hash: $hash, taker: $taker, tokenId: $tokenId, payWith: $payWith) {\n      orderHash blockNumber function ready\n      takerOrder { isOrderAsk taker price tokenId minPercentageToAsk params }\n      transaction { to data value }\n      steps { code message transaction { to data value } }\n    }\n  }\n"): (typeof documents)["\n  query Fulfill($hash: Hash!, $taker: Address!, $tokenId: Uint256, $payWith: PayWith) {\n    fulfillment(hash: $hash, taker: $taker, tokenId: $tokenId, payWith: $payWith) {\n      orderHash blockNumber function ready\n      takerOrder { isOrderAsk taker price tokenId minPercentageToAsk params }\n      transaction { to data value }\n      steps { code message transaction { to data value } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NestedOrders($first: Int!) {\n    orders(first: $first, sort: NEWEST) {\n      edges {\n        cursor\n        node {\n          hash\n          price\n          status\n          collectionAddress\n          collection {\n            address\n            name\n            stats {\n              floorPrice\n              volume24h\n              countAll\n              change7d\n            }\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query NestedOrders($first: Int!) {\n    orders(first: $first, sort: NEWEST) {\n      edges {\n        cursor\n        node {\n          hash\n          price\n          status\n          collectionAddress\n          collection {\n            address\n            name\n            stats {\n              floorPrice\n              volume24h\n              countAll\n              change7d\n            }\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CollectionsPage($a: Address!, $b: Address!, $first: Int!) {\n    a: collection(address: $a) {\n      name\n      stats { volumeAll }\n      orders(first: $first, filter: { isOrderAsk: true }, sort: PRICE_ASC) {\n        edges { node { hash price collection { name } } }\n      }\n    }\n    b: collection(address: $b) {\n      name\n      stats { volumeAll }\n      orders(first: $first, sort: NEWEST) {\n        edges { node { hash collection { symbol } } }\n      }\n    }\n  }\n"): (typeof documents)["\n  query CollectionsPage($a: Address!, $b: Address!, $first: Int!) {\n    a: collection(address: $a) {\n      name\n      stats { volumeAll }\n      orders(first: $first, filter: { isOrderAsk: true }, sort: PRICE_ASC) {\n        edges { node { hash price collection { name } } }\n      }\n    }\n    b: collection(address: $b) {\n      name\n      stats { volumeAll }\n      orders(first: $first, sort: NEWEST) {\n        edges { node { hash collection { symbol } } }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ValidateMakerOrder($input: MakerOrderInput!) {\n    validateOrder(input: $input) { hash recoveredSigner valid problems { code field message } }\n  }\n"): (typeof documents)["\n  query ValidateMakerOrder($input: MakerOrderInput!) {\n    validateOrder(input: $input) { hash recoveredSigner valid problems { code field message } }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;