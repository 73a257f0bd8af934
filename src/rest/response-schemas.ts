// The v1 JSON answers (spec 2.2, 2.6-2.8) as zod schemas, for the OpenAPI document. They are
// checked against real answers on the demo data (test/rest/openapi.test.ts parses
// src/rest/openapi/examples.json with them), so a response that changes shape fails a test.
import * as z from 'zod';
import { LOWERCASE_BYTES32_HEX } from '../domain/bytes32-hex.js';
import { FILL_FUNCTIONS, FULFILLMENT_STEP_CODES } from '../domain/fulfillment.js';
import { ORDER_PROBLEM_CODES } from '../domain/order-problems.js';
import { ORDER_WARNING_CODES } from '../domain/order-warnings.js';
import { ORDER_STATUSES } from '../domain/order-status.js';

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/).meta({ description: 'EIP-55 checksummed address' });
const hash = z.string().regex(LOWERCASE_BYTES32_HEX);
const uint = z.string().regex(/^(0|[1-9]\d*)$/).meta({ description: 'uint256 as a decimal string' });
const percent = z.string().regex(/^-?\d+\.\d{2}$/).nullable().meta({ description: 'percentage with two decimals; null without a baseline' });
const unixTime = z.int().min(0).meta({ description: 'unix seconds' });

export const OrderResponse = z
  .strictObject({
    hash: hash.meta({ description: 'EIP-712 struct hash of the maker order' }),
    collectionAddress: address,
    tokenId: uint.nullable().meta({ description: 'null for a collection offer (signed and hashed as 0)' }),
    isOrderAsk: z.boolean(),
    signer: address,
    strategy: address,
    currencyAddress: address,
    amount: uint,
    price: uint.meta({ description: 'wei' }),
    nonce: uint,
    startTime: unixTime,
    endTime: unixTime,
    minPercentageToAsk: z.int().min(0).max(10000),
    params: z.string().regex(/^(0x[0-9a-f]*)?$/).meta({ description: 'ABI-encoded params, "" for none' }),
    status: z.enum(ORDER_STATUSES),
    signature: z.string().regex(/^0x[0-9a-f]{130}$/),
    r: hash,
    s: hash,
    v: z.union([z.literal(27), z.literal(28)]),
  })
  .meta({ id: 'Order' });

const link = z.string().nullable();
export const CollectionResponse = z
  .strictObject({
    address,
    owner: address,
    setter: address.nullable(),
    admin: address.nullable(),
    name: z.string(),
    description: z.string().nullable(),
    symbol: z.string().nullable(),
    type: z.enum(['ERC721', 'ERC1155']),
    websiteLink: link,
    alphaLink: link,
    bravoLink: link,
    charlieLink: link,
    deltaLink: link,
    echoLink: link,
    foxtrotLink: link,
    isVerified: z.boolean(),
    isExplicit: z.boolean(),
    logoURI: link,
    bannerURI: link,
  })
  .meta({ id: 'Collection' });

const windowFields = Object.fromEntries(
  ['24h', '7d', '1m', '3m', '6m', '1y'].flatMap((p) => [
    [`volume${p}`, uint],
    [`average${p}`, uint],
    [`count${p}`, uint],
    [`change${p}`, percent],
  ]),
);
export const CollectionStatsResponse = z
  .strictObject({
    address,
    countOwners: uint,
    totalSupply: uint,
    floorPrice: uint.nullable(),
    floorChange24h: percent,
    floorChange7d: percent,
    floorChange30d: percent,
    marketCap: uint.nullable(),
    volumeAll: uint,
    averageAll: uint,
    countAll: uint,
    ...windowFields,
  })
  .meta({ id: 'CollectionStats', description: 'rolling windows (now - D, now]; see docs/decisions.md, "Statistics"' });

export const ListingRewardResponse = z
  .strictObject({ collection: CollectionResponse, volume24hGlobal: uint, points: z.int(), floorGlobal: uint })
  .meta({ id: 'ListingReward' });

export const OrderProblemResponse = z
  .strictObject({ code: z.enum(ORDER_PROBLEM_CODES), field: z.string().nullable(), message: z.string() })
  .meta({ id: 'OrderProblem' });

export const OrderWarningResponse = z
  .strictObject({
    code: z.enum(ORDER_WARNING_CODES),
    message: z.string(),
    reference: z.string().meta({ description: 'what the order is compared with: wei per unit for a price, seconds for an expiry' }),
    value: z.string().meta({ description: "the order's figure in the same unit" }),
  })
  .meta({ id: 'OrderWarning', description: 'never a refusal (docs/api.md, "Warnings")' });

export const ValidateOrderResponse = z
  .strictObject({
    hash: hash.nullable(),
    signer: address.nullable().meta({ description: 'the address recovered from the signature' }),
    valid: z.boolean(),
    problems: z.array(OrderProblemResponse),
    warnings: z.array(OrderWarningResponse),
  })
  .meta({ id: 'OrderValidation' });

/** The POST /orders body (spec 2.3). Validated by src/domain/maker-order-input.ts; this describes it. */
export const MakerOrderBody = z
  .object({
    isOrderAsk: z.boolean(),
    signer: address,
    collection: address,
    price: uint,
    tokenId: uint.nullable().meta({ description: 'null for a collection offer' }),
    amount: uint,
    strategy: address,
    currency: address,
    nonce: uint,
    startTime: z.union([unixTime, uint]),
    endTime: z.union([unixTime, uint]),
    minPercentageToAsk: z.int().min(0).max(10000),
    params: z.array(z.union([z.string(), z.number(), z.boolean()])).nullable().meta({ description: 'strategy params as the v1 SDK signs them; [] or null for none' }),
    signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/),
  })
  .meta({ id: 'MakerOrder' });

const block = z.int().min(0).nullable();
export const IndexerStatusResponse = z
  .strictObject({
    chainId: z.int(),
    headBlock: block.meta({ description: "the node's latest block; null without RPC or when it cannot be reached" }),
    headTimestamp: unixTime.nullable(),
    indexedBlock: block.meta({ description: 'the last block whose effects are committed; null before the first batch' }),
    indexedBlockTimestamp: unixTime.nullable(),
    confirmations: z.int().min(0),
    lagBlocks: z.int().nullable().meta({ description: 'headBlock - indexedBlock' }),
    lagSeconds: z.int().nullable().meta({ description: 'head block time - indexed block time' }),
    lastEventBlock: block,
    lastEventTimestamp: unixTime.nullable(),
    updatedAt: unixTime.nullable().meta({ description: 'when the cursor last moved' }),
    running: z.boolean().meta({ description: 'this instance runs an indexer loop' }),
    holdsLease: z.boolean().meta({ description: 'this instance holds the indexer lease (it is the one writing)' }),
    // The indexer's last error stays out of public answers (it can name the RPC host); the log has it.
  })
  .meta({ id: 'IndexerStatus' });

const TransactionResponse = z
  .strictObject({ to: address, data: z.string().regex(/^0x([0-9a-f]{2})*$/).meta({ description: 'calldata' }), value: uint.meta({ description: 'wei to send' }) })
  .meta({ id: 'Transaction' });

export const FulfillmentResponse = z
  .strictObject({
    orderHash: hash,
    blockNumber: z.int().min(0).meta({ description: 'the block every chain fact was read at' }),
    function: z.enum(FILL_FUNCTIONS).meta({ description: 'the v1 exchange function that fills the order' }),
    takerOrder: z.strictObject({
      isOrderAsk: z.boolean(),
      taker: address,
      price: uint,
      tokenId: uint,
      minPercentageToAsk: z.int().min(0).max(10000),
      params: z.string().regex(/^0x([0-9a-f]{2})*$/),
    }),
    transaction: TransactionResponse.meta({ description: 'the fill: to the exchange, with this calldata and value' }),
    steps: z
      .array(z.strictObject({ code: z.enum(FULFILLMENT_STEP_CODES), message: z.string(), transaction: TransactionResponse.nullable() }))
      .meta({ description: 'what the taker must still do, in order; a null transaction: no transaction can take the step' }),
    ready: z.boolean().meta({ description: 'no step left: the fill can be sent now' }),
  })
  .meta({ id: 'Fulfillment' });

export const TokenResponse = z
  .strictObject({
    collectionAddress: address,
    tokenId: uint,
    name: z.string().nullable().meta({ description: "the metadata's name; null without metadata" }),
    description: z.string().nullable(),
    image: z.string().nullable().meta({ description: 'http(s) URL (ipfs:// and ar:// through the public gateways) or data: URI; null without one' }),
    imageURI: z.string().nullable().meta({ description: 'v1 name of `image`' }),
    animationURI: z.string().nullable(),
    tokenURI: z.string().nullable().meta({ description: 'the URI the contract answered; null: never read' }),
    isExplicit: z.boolean().meta({ description: "the collection's explicit flag" }),
    isAnimated: z.boolean().meta({ description: 'the metadata names an animation' }),
    flag: z.enum(['NONE', 'NO_IMAGE']).meta({ description: 'NO_IMAGE: no image; v1 also had moderation flags (PORNOGRAPHY, TRIAGE) that this service never sets' }),
    attributes: z
      .array(z.strictObject({ traitType: z.string(), value: z.string(), displayType: z.string().nullable(), count: z.int().min(0).meta({ description: "the collection's tokens with this value" }) }))
      .nullable()
      .meta({ description: 'in document order; null while no metadata is shown' }),
    rarity: z.strictObject({ rank: z.int().min(1), score: z.number() }).nullable().meta({ description: 'OpenRarity; null when not ranked' }),
    owners: z.array(z.strictObject({ owner: address, balance: uint })).meta({ description: 'holders with a positive balance, largest first (ERC-1155: several)' }),
    bestAsk: OrderResponse.nullable().meta({ description: 'the cheapest live fixed-price listing of the token' }),
    bestBid: OrderResponse.nullable().meta({ description: 'the highest live offer that can fill it: its token offers and the collection offers' }),
    lastSale: z
      .strictObject({ price: uint, amount: uint, currencyAddress: address, buyer: address, seller: address, txHash: hash, timestamp: unixTime })
      .nullable(),
    listedAt: unixTime.nullable().meta({ description: 'when bestAsk went live: the later of its submission and its startTime' }),
  })
  .meta({ id: 'Token' });

export const FieldProblemResponse = z.strictObject({ field: z.string(), code: z.string(), message: z.string() }).meta({ id: 'FieldProblem' });

export const okEnvelope = <T extends z.ZodType>(data: T) => z.strictObject({ success: z.literal(true), message: z.null(), data });

export const FailureEnvelope = z
  .strictObject({
    success: z.literal(false),
    message: z.string(),
    data: z.null(),
    errors: z.array(FieldProblemResponse).optional().meta({ description: 'every problem of a bad request (400)' }),
  })
  .meta({ id: 'Failure' });

export const TraitPanelResponse = z
  .array(
    z.strictObject({
      traitType: z.string(),
      kind: z.enum(['STRING', 'NUMBER', 'DATE']),
      valueCount: z.int().min(0),
      min: z.number().nullable(),
      max: z.number().nullable(),
      values: z.array(
        z.strictObject({
          value: z.string(),
          tokenCount: z.int().min(0),
          sharePercent: z.number(),
          listedCount: z.int().min(0),
          floorPrice: uint.nullable().meta({ description: 'the cheapest live fixed-price listing of a token with this value' }),
          bestBidPrice: uint.nullable().meta({ description: 'the highest live offer that can fill a token with this value' }),
        }),
      ),
    }),
  )
  .meta({ id: 'TraitPanel' });

export const MetadataRefreshResponse = z
  .strictObject({
    queued: z.boolean().meta({ description: 'false: refused by the cooldown, nothing queued' }),
    tokens: z.int().min(0),
    nextRefreshAllowedAt: unixTime,
  })
  .meta({ id: 'MetadataRefresh' });
