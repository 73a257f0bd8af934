/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type CollectionType =
  | 'ERC721'
  | 'ERC1155';

/** The v1 exchange function that fills the order */
export type FillFunction =
  | 'matchAskWithTakerBid'
  | 'matchAskWithTakerBidUsingETHAndWETH'
  | 'matchBidWithTakerAsk';

export type FulfillmentStepCode =
  | 'APPROVE_TRANSFER_MANAGER'
  | 'APPROVE_WETH'
  | 'INSUFFICIENT_ETH'
  | 'NOT_TOKEN_OWNER'
  | 'WRAP_ETH';

/** Spec 2.3: a maker order with its EIP-712 signature. The hash is computed by the service. A value of the wrong format is a BAD_USER_INPUT error naming its field (the scalars below); the order rules are checked by the service and answered as problems. */
export type MakerOrderInput = {
  amount: string;
  collection: string;
  currency: string;
  endTime: number;
  isOrderAsk: boolean;
  minPercentageToAsk: number;
  nonce: string;
  params: Array<string | number | boolean>;
  /** wei */
  price: string;
  /** 65 bytes r || s || v as 0x-hex */
  signature: string;
  /** any letter case */
  signer: string;
  startTime: number;
  strategy: string;
  /** null for a collection offer (signed as 0) */
  tokenId?: string | null | undefined;
};

export type OrderFilterInput = {
  /** orders on tokens carrying these traits (OR within a trait type, AND across; collection offers never match); needs the collection or the signer */
  attributes?: Array<TraitFilterInput> | null | undefined;
  collection?: string | null | undefined;
  currency?: string | null | undefined;
  /** orders whose endTime is at or before this */
  endTime?: number | null | undefined;
  /** only the order with this hash */
  hash?: string | null | undefined;
  isOrderAsk?: boolean | null | undefined;
  nonce?: string | null | undefined;
  price?: PriceRangeInput | null | undefined;
  signer?: string | null | undefined;
  /** orders whose startTime is at or after this */
  startTime?: number | null | undefined;
  /** any of these statuses */
  status?: Array<OrderStatus> | null | undefined;
  strategy?: string | null | undefined;
  tokenId?: string | null | undefined;
};

export type OrderProblemCode =
  | 'CHAIN_UNAVAILABLE'
  | 'COLLECTION_OFFER_ASK'
  | 'COLLECTION_OFFER_TOKEN_ID'
  | 'CONTRACT_SIGNATURE_INVALID'
  | 'CURRENCY_NOT_WHITELISTED'
  | 'DUPLICATE_ORDER'
  | 'DUTCH_AUCTION_BID'
  | 'DUTCH_AUCTION_PARAMS'
  | 'DUTCH_AUCTION_TOO_SHORT'
  | 'END_BEFORE_START'
  | 'EXPIRED'
  | 'HIGH_S_SIGNATURE'
  | 'INSUFFICIENT_WETH_ALLOWANCE'
  | 'INSUFFICIENT_WETH_BALANCE'
  | 'INVALID_ADDRESS'
  | 'INVALID_AMOUNT'
  | 'INVALID_INTEGER'
  | 'INVALID_PARAMS'
  | 'INVALID_SIGNATURE_FORMAT'
  | 'INVALID_SIGNATURE_V'
  | 'INVALID_TIMESTAMP'
  | 'INVALID_TYPE'
  | 'INVALID_UINT256'
  | 'MIN_PERCENTAGE_TOO_HIGH'
  | 'MISSING_FIELD'
  | 'NONCE_CAP_REACHED'
  | 'NONCE_TOO_LOW'
  | 'NONCE_USED'
  | 'NOT_APPROVED'
  | 'NOT_OWNER'
  | 'PRICE_ZERO'
  | 'PRIVATE_SALE_BID'
  | 'PRIVATE_SALE_PARAMS'
  | 'SIGNATURE_MISMATCH'
  | 'STRATEGY_NOT_WHITELISTED'
  | 'TOKEN_ID_REQUIRED'
  | 'UNKNOWN_COLLECTION';

/** NEWEST: most recently created first. EXPIRING_SOON: earliest endTime first. Ties break on creation order. */
export type OrderSort =
  | 'EXPIRING_SOON'
  | 'NEWEST'
  | 'PRICE_ASC'
  | 'PRICE_DESC';

/** Spec 3. A live order past its endTime reads as EXPIRED. */
export type OrderStatus =
  | 'CANCELLED'
  | 'ERC20_APPROVAL'
  | 'ERC20_BALANCE'
  | 'ERC_APPROVAL'
  | 'EXECUTED'
  | 'EXPIRED'
  | 'INVALID_OWNER'
  | 'VALID';

/** How a listing is paid: ETH (matchAskWithTakerBidUsingETHAndWETH, the price sent as value) or WETH (matchAskWithTakerBid) */
export type PayWith =
  | 'ETH'
  | 'WETH';

export type PriceRangeInput = {
  max?: string | null | undefined;
  min?: string | null | undefined;
};

/** Tokens whose trait of this type has one of these values (values as Token.attributes shows them) */
export type TraitFilterInput = {
  traitType: string;
  values: Array<string>;
};

export type RestOrderFieldsFragment = { hash: string, collectionAddress: string, tokenId: string | null, isOrderAsk: boolean, signer: string, strategy: string, currencyAddress: string, amount: string, price: string, nonce: string, startTime: number, endTime: number, minPercentageToAsk: number, params: string, status: OrderStatus, signature: string, r: string, s: string, v: number };

export type RestCollectionFieldsFragment = { address: string, owner: string, setter: string | null, admin: string | null, name: string, description: string | null, symbol: string | null, type: CollectionType, websiteLink: string | null, alphaLink: string | null, bravoLink: string | null, charlieLink: string | null, deltaLink: string | null, echoLink: string | null, foxtrotLink: string | null, isVerified: boolean, isExplicit: boolean, logoURI: string | null, bannerURI: string | null };

export type RestOrdersQueryVariables = Exact<{
  filter?: OrderFilterInput | null | undefined;
  sort?: OrderSort | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type RestOrdersQuery = { orders: { edges: Array<{ node: { hash: string, collectionAddress: string, tokenId: string | null, isOrderAsk: boolean, signer: string, strategy: string, currencyAddress: string, amount: string, price: string, nonce: string, startTime: number, endTime: number, minPercentageToAsk: number, params: string, status: OrderStatus, signature: string, r: string, s: string, v: number } }> } };

export type RestNonceQueryVariables = Exact<{
  address: string;
}>;


export type RestNonceQuery = { nonce: string };

export type RestCollectionQueryVariables = Exact<{
  address: string;
}>;


export type RestCollectionQuery = { collection: { address: string, owner: string, setter: string | null, admin: string | null, name: string, description: string | null, symbol: string | null, type: CollectionType, websiteLink: string | null, alphaLink: string | null, bravoLink: string | null, charlieLink: string | null, deltaLink: string | null, echoLink: string | null, foxtrotLink: string | null, isVerified: boolean, isExplicit: boolean, logoURI: string | null, bannerURI: string | null } | null };

export type RestCollectionStatsQueryVariables = Exact<{
  address: string;
}>;


export type RestCollectionStatsQuery = { collectionStats: { address: string, countOwners: string, totalSupply: string, floorPrice: string | null, floorChange24h: string | null, floorChange7d: string | null, floorChange30d: string | null, marketCap: string | null, volumeAll: string, averageAll: string, countAll: string, volume24h: string, average24h: string, count24h: string, change24h: string | null, volume7d: string, average7d: string, count7d: string, change7d: string | null, volume1m: string, average1m: string, count1m: string, change1m: string | null, volume3m: string, average3m: string, count3m: string, change3m: string | null, volume6m: string, average6m: string, count6m: string, change6m: string | null, volume1y: string, average1y: string, count1y: string, change1y: string | null } | null };

export type RestListingRewardsQueryVariables = Exact<{ [key: string]: never; }>;


export type RestListingRewardsQuery = { listingRewards: Array<{ volume24hGlobal: string, points: number, floorGlobal: string, collection: { address: string, owner: string, setter: string | null, admin: string | null, name: string, description: string | null, symbol: string | null, type: CollectionType, websiteLink: string | null, alphaLink: string | null, bravoLink: string | null, charlieLink: string | null, deltaLink: string | null, echoLink: string | null, foxtrotLink: string | null, isVerified: boolean, isExplicit: boolean, logoURI: string | null, bannerURI: string | null } }> | null };

export type RestIndexerStatusQueryVariables = Exact<{ [key: string]: never; }>;


export type RestIndexerStatusQuery = { indexerStatus: { chainId: number, headBlock: number | null, headTimestamp: number | null, indexedBlock: number | null, indexedBlockTimestamp: number | null, confirmations: number, lagBlocks: number | null, lagSeconds: number | null, lastEventBlock: number | null, lastEventTimestamp: number | null, updatedAt: number | null, running: boolean, holdsLease: boolean } };

export type FulfillQueryVariables = Exact<{
  hash: string;
  taker: string;
  tokenId?: string | null | undefined;
  payWith?: PayWith | null | undefined;
}>;


export type FulfillQuery = { fulfillment: { orderHash: string, blockNumber: number, function: FillFunction, ready: boolean, takerOrder: { isOrderAsk: boolean, taker: string, price: string, tokenId: string, minPercentageToAsk: number, params: string }, transaction: { to: string, data: string, value: string }, steps: Array<{ code: FulfillmentStepCode, message: string, transaction: { to: string, data: string, value: string } | null }> } };

export type NestedOrdersQueryVariables = Exact<{
  first: number;
}>;


export type NestedOrdersQuery = { orders: { edges: Array<{ cursor: string, node: { hash: string, price: string, status: OrderStatus, collectionAddress: string, collection: { address: string, name: string, stats: { floorPrice: string | null, volume24h: string, countAll: string, change7d: string | null } } } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type CollectionsPageQueryVariables = Exact<{
  a: string;
  b: string;
  first: number;
}>;


export type CollectionsPageQuery = { a: { name: string, stats: { volumeAll: string }, orders: { edges: Array<{ node: { hash: string, price: string, collection: { name: string } } }> } } | null, b: { name: string, stats: { volumeAll: string }, orders: { edges: Array<{ node: { hash: string, collection: { symbol: string | null } } }> } } | null };

export type ValidateMakerOrderQueryVariables = Exact<{
  input: MakerOrderInput;
}>;


export type ValidateMakerOrderQuery = { validateOrder: { hash: string | null, recoveredSigner: string | null, valid: boolean, problems: Array<{ code: OrderProblemCode, field: string | null, message: string }> } };

export const RestOrderFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"RestOrderFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Order"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hash"}},{"kind":"Field","name":{"kind":"Name","value":"collectionAddress"}},{"kind":"Field","name":{"kind":"Name","value":"tokenId"}},{"kind":"Field","name":{"kind":"Name","value":"isOrderAsk"}},{"kind":"Field","name":{"kind":"Name","value":"signer"}},{"kind":"Field","name":{"kind":"Name","value":"strategy"}},{"kind":"Field","name":{"kind":"Name","value":"currencyAddress"}},{"kind":"Field","name":{"kind":"Name","value":"amount"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"nonce"}},{"kind":"Field","name":{"kind":"Name","value":"startTime"}},{"kind":"Field","name":{"kind":"Name","value":"endTime"}},{"kind":"Field","name":{"kind":"Name","value":"minPercentageToAsk"}},{"kind":"Field","name":{"kind":"Name","value":"params"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"signature"}},{"kind":"Field","name":{"kind":"Name","value":"r"}},{"kind":"Field","name":{"kind":"Name","value":"s"}},{"kind":"Field","name":{"kind":"Name","value":"v"}}]}}]} as unknown as DocumentNode<RestOrderFieldsFragment, unknown>;
export const RestCollectionFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"RestCollectionFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Collection"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"address"}},{"kind":"Field","name":{"kind":"Name","value":"owner"}},{"kind":"Field","name":{"kind":"Name","value":"setter"}},{"kind":"Field","name":{"kind":"Name","value":"admin"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","name":{"kind":"Name","value":"symbol"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"websiteLink"}},{"kind":"Field","name":{"kind":"Name","value":"alphaLink"}},{"kind":"Field","name":{"kind":"Name","value":"bravoLink"}},{"kind":"Field","name":{"kind":"Name","value":"charlieLink"}},{"kind":"Field","name":{"kind":"Name","value":"deltaLink"}},{"kind":"Field","name":{"kind":"Name","value":"echoLink"}},{"kind":"Field","name":{"kind":"Name","value":"foxtrotLink"}},{"kind":"Field","name":{"kind":"Name","value":"isVerified"}},{"kind":"Field","name":{"kind":"Name","value":"isExplicit"}},{"kind":"Field","name":{"kind":"Name","value":"logoURI"}},{"kind":"Field","name":{"kind":"Name","value":"bannerURI"}}]}}]} as unknown as DocumentNode<RestCollectionFieldsFragment, unknown>;
export const RestOrdersDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"RestOrders"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"filter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"OrderFilterInput"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sort"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"OrderSort"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"orders"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"filter"}}},{"kind":"Argument","name":{"kind":"Name","value":"sort"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sort"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"RestOrderFields"}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"RestOrderFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Order"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hash"}},{"kind":"Field","name":{"kind":"Name","value":"collectionAddress"}},{"kind":"Field","name":{"kind":"Name","value":"tokenId"}},{"kind":"Field","name":{"kind":"Name","value":"isOrderAsk"}},{"kind":"Field","name":{"kind":"Name","value":"signer"}},{"kind":"Field","name":{"kind":"Name","value":"strategy"}},{"kind":"Field","name":{"kind":"Name","value":"currencyAddress"}},{"kind":"Field","name":{"kind":"Name","value":"amount"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"nonce"}},{"kind":"Field","name":{"kind":"Name","value":"startTime"}},{"kind":"Field","name":{"kind":"Name","value":"endTime"}},{"kind":"Field","name":{"kind":"Name","value":"minPercentageToAsk"}},{"kind":"Field","name":{"kind":"Name","value":"params"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"signature"}},{"kind":"Field","name":{"kind":"Name","value":"r"}},{"kind":"Field","name":{"kind":"Name","value":"s"}},{"kind":"Field","name":{"kind":"Name","value":"v"}}]}}]} as unknown as DocumentNode<RestOrdersQuery, RestOrdersQueryVariables>;
export const RestNonceDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"RestNonce"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"address"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Address"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nonce"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"address"},"value":{"kind":"Variable","name":{"kind":"Name","value":"address"}}}]}]}}]} as unknown as DocumentNode<RestNonceQuery, RestNonceQueryVariables>;
export const RestCollectionDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"RestCollection"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"address"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Address"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"collection"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"address"},"value":{"kind":"Variable","name":{"kind":"Name","value":"address"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"RestCollectionFields"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"RestCollectionFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Collection"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"address"}},{"kind":"Field","name":{"kind":"Name","value":"owner"}},{"kind":"Field","name":{"kind":"Name","value":"setter"}},{"kind":"Field","name":{"kind":"Name","value":"admin"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","name":{"kind":"Name","value":"symbol"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"websiteLink"}},{"kind":"Field","name":{"kind":"Name","value":"alphaLink"}},{"kind":"Field","name":{"kind":"Name","value":"bravoLink"}},{"kind":"Field","name":{"kind":"Name","value":"charlieLink"}},{"kind":"Field","name":{"kind":"Name","value":"deltaLink"}},{"kind":"Field","name":{"kind":"Name","value":"echoLink"}},{"kind":"Field","name":{"kind":"Name","value":"foxtrotLink"}},{"kind":"Field","name":{"kind":"Name","value":"isVerified"}},{"kind":"Field","name":{"kind":"Name","value":"isExplicit"}},{"kind":"Field","name":{"kind":"Name","value":"logoURI"}},{"kind":"Field","name":{"kind":"Name","value":"bannerURI"}}]}}]} as unknown as DocumentNode<RestCollectionQuery, RestCollectionQueryVariables>;
export const RestCollectionStatsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"RestCollectionStats"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"address"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Address"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"collectionStats"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"address"},"value":{"kind":"Variable","name":{"kind":"Name","value":"address"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"address"}},{"kind":"Field","name":{"kind":"Name","value":"countOwners"}},{"kind":"Field","name":{"kind":"Name","value":"totalSupply"}},{"kind":"Field","name":{"kind":"Name","value":"floorPrice"}},{"kind":"Field","name":{"kind":"Name","value":"floorChange24h"}},{"kind":"Field","name":{"kind":"Name","value":"floorChange7d"}},{"kind":"Field","name":{"kind":"Name","value":"floorChange30d"}},{"kind":"Field","name":{"kind":"Name","value":"marketCap"}},{"kind":"Field","name":{"kind":"Name","value":"volumeAll"}},{"kind":"Field","name":{"kind":"Name","value":"averageAll"}},{"kind":"Field","name":{"kind":"Name","value":"countAll"}},{"kind":"Field","name":{"kind":"Name","value":"volume24h"}},{"kind":"Field","name":{"kind":"Name","value":"average24h"}},{"kind":"Field","name":{"kind":"Name","value":"count24h"}},{"kind":"Field","name":{"kind":"Name","value":"change24h"}},{"kind":"Field","name":{"kind":"Name","value":"volume7d"}},{"kind":"Field","name":{"kind":"Name","value":"average7d"}},{"kind":"Field","name":{"kind":"Name","value":"count7d"}},{"kind":"Field","name":{"kind":"Name","value":"change7d"}},{"kind":"Field","name":{"kind":"Name","value":"volume1m"}},{"kind":"Field","name":{"kind":"Name","value":"average1m"}},{"kind":"Field","name":{"kind":"Name","value":"count1m"}},{"kind":"Field","name":{"kind":"Name","value":"change1m"}},{"kind":"Field","name":{"kind":"Name","value":"volume3m"}},{"kind":"Field","name":{"kind":"Name","value":"average3m"}},{"kind":"Field","name":{"kind":"Name","value":"count3m"}},{"kind":"Field","name":{"kind":"Name","value":"change3m"}},{"kind":"Field","name":{"kind":"Name","value":"volume6m"}},{"kind":"Field","name":{"kind":"Name","value":"average6m"}},{"kind":"Field","name":{"kind":"Name","value":"count6m"}},{"kind":"Field","name":{"kind":"Name","value":"change6m"}},{"kind":"Field","name":{"kind":"Name","value":"volume1y"}},{"kind":"Field","name":{"kind":"Name","value":"average1y"}},{"kind":"Field","name":{"kind":"Name","value":"count1y"}},{"kind":"Field","name":{"kind":"Name","value":"change1y"}}]}}]}}]} as unknown as DocumentNode<RestCollectionStatsQuery, RestCollectionStatsQueryVariables>;
export const RestListingRewardsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"RestListingRewards"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"listingRewards"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"collection"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"RestCollectionFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"volume24hGlobal"}},{"kind":"Field","name":{"kind":"Name","value":"points"}},{"kind":"Field","name":{"kind":"Name","value":"floorGlobal"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"RestCollectionFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Collection"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"address"}},{"kind":"Field","name":{"kind":"Name","value":"owner"}},{"kind":"Field","name":{"kind":"Name","value":"setter"}},{"kind":"Field","name":{"kind":"Name","value":"admin"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"description"}},{"kind":"Field","name":{"kind":"Name","value":"symbol"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"websiteLink"}},{"kind":"Field","name":{"kind":"Name","value":"alphaLink"}},{"kind":"Field","name":{"kind":"Name","value":"bravoLink"}},{"kind":"Field","name":{"kind":"Name","value":"charlieLink"}},{"kind":"Field","name":{"kind":"Name","value":"deltaLink"}},{"kind":"Field","name":{"kind":"Name","value":"echoLink"}},{"kind":"Field","name":{"kind":"Name","value":"foxtrotLink"}},{"kind":"Field","name":{"kind":"Name","value":"isVerified"}},{"kind":"Field","name":{"kind":"Name","value":"isExplicit"}},{"kind":"Field","name":{"kind":"Name","value":"logoURI"}},{"kind":"Field","name":{"kind":"Name","value":"bannerURI"}}]}}]} as unknown as DocumentNode<RestListingRewardsQuery, RestListingRewardsQueryVariables>;
export const RestIndexerStatusDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"RestIndexerStatus"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"indexerStatus"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"chainId"}},{"kind":"Field","name":{"kind":"Name","value":"headBlock"}},{"kind":"Field","name":{"kind":"Name","value":"headTimestamp"}},{"kind":"Field","name":{"kind":"Name","value":"indexedBlock"}},{"kind":"Field","name":{"kind":"Name","value":"indexedBlockTimestamp"}},{"kind":"Field","name":{"kind":"Name","value":"confirmations"}},{"kind":"Field","name":{"kind":"Name","value":"lagBlocks"}},{"kind":"Field","name":{"kind":"Name","value":"lagSeconds"}},{"kind":"Field","name":{"kind":"Name","value":"lastEventBlock"}},{"kind":"Field","name":{"kind":"Name","value":"lastEventTimestamp"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}},{"kind":"Field","name":{"kind":"Name","value":"running"}},{"kind":"Field","name":{"kind":"Name","value":"holdsLease"}}]}}]}}]} as unknown as DocumentNode<RestIndexerStatusQuery, RestIndexerStatusQueryVariables>;
export const FulfillDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Fulfill"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"hash"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Hash"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"taker"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Address"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"tokenId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Uint256"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"payWith"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"PayWith"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"fulfillment"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"hash"},"value":{"kind":"Variable","name":{"kind":"Name","value":"hash"}}},{"kind":"Argument","name":{"kind":"Name","value":"taker"},"value":{"kind":"Variable","name":{"kind":"Name","value":"taker"}}},{"kind":"Argument","name":{"kind":"Name","value":"tokenId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"tokenId"}}},{"kind":"Argument","name":{"kind":"Name","value":"payWith"},"value":{"kind":"Variable","name":{"kind":"Name","value":"payWith"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"orderHash"}},{"kind":"Field","name":{"kind":"Name","value":"blockNumber"}},{"kind":"Field","name":{"kind":"Name","value":"function"}},{"kind":"Field","name":{"kind":"Name","value":"ready"}},{"kind":"Field","name":{"kind":"Name","value":"takerOrder"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"isOrderAsk"}},{"kind":"Field","name":{"kind":"Name","value":"taker"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"tokenId"}},{"kind":"Field","name":{"kind":"Name","value":"minPercentageToAsk"}},{"kind":"Field","name":{"kind":"Name","value":"params"}}]}},{"kind":"Field","name":{"kind":"Name","value":"transaction"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"to"}},{"kind":"Field","name":{"kind":"Name","value":"data"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}},{"kind":"Field","name":{"kind":"Name","value":"steps"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"message"}},{"kind":"Field","name":{"kind":"Name","value":"transaction"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"to"}},{"kind":"Field","name":{"kind":"Name","value":"data"}},{"kind":"Field","name":{"kind":"Name","value":"value"}}]}}]}}]}}]}}]} as unknown as DocumentNode<FulfillQuery, FulfillQueryVariables>;
export const NestedOrdersDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"NestedOrders"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"orders"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"sort"},"value":{"kind":"EnumValue","value":"NEWEST"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hash"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"collectionAddress"}},{"kind":"Field","name":{"kind":"Name","value":"collection"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"address"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"stats"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"floorPrice"}},{"kind":"Field","name":{"kind":"Name","value":"volume24h"}},{"kind":"Field","name":{"kind":"Name","value":"countAll"}},{"kind":"Field","name":{"kind":"Name","value":"change7d"}}]}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}}]}}]}}]} as unknown as DocumentNode<NestedOrdersQuery, NestedOrdersQueryVariables>;
export const CollectionsPageDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"CollectionsPage"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"a"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Address"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"b"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Address"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","alias":{"kind":"Name","value":"a"},"name":{"kind":"Name","value":"collection"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"address"},"value":{"kind":"Variable","name":{"kind":"Name","value":"a"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"stats"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"volumeAll"}}]}},{"kind":"Field","name":{"kind":"Name","value":"orders"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"isOrderAsk"},"value":{"kind":"BooleanValue","value":true}}]}},{"kind":"Argument","name":{"kind":"Name","value":"sort"},"value":{"kind":"EnumValue","value":"PRICE_ASC"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hash"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"collection"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]}}]}}]}},{"kind":"Field","alias":{"kind":"Name","value":"b"},"name":{"kind":"Name","value":"collection"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"address"},"value":{"kind":"Variable","name":{"kind":"Name","value":"b"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"stats"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"volumeAll"}}]}},{"kind":"Field","name":{"kind":"Name","value":"orders"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"sort"},"value":{"kind":"EnumValue","value":"NEWEST"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hash"}},{"kind":"Field","name":{"kind":"Name","value":"collection"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"symbol"}}]}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<CollectionsPageQuery, CollectionsPageQueryVariables>;
export const ValidateMakerOrderDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ValidateMakerOrder"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"MakerOrderInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"validateOrder"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hash"}},{"kind":"Field","name":{"kind":"Name","value":"recoveredSigner"}},{"kind":"Field","name":{"kind":"Name","value":"valid"}},{"kind":"Field","name":{"kind":"Name","value":"problems"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<ValidateMakerOrderQuery, ValidateMakerOrderQueryVariables>;