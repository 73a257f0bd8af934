// The one closed set of reasons a submitted maker order (spec 2.3, POST /orders) is refused.
// The domain layer returns them as values (shape, rules, signature); the service layer adds
// the nonce, duplicate and chain-state ones. Default messages name the rule, in the wording
// style of the original API ("Signer did not approve to sell the token").
export const ORDER_PROBLEM_CODES = [
  // shape of the request body (maker-order-input.ts)
  'MISSING_FIELD',
  'INVALID_TYPE',
  'INVALID_ADDRESS',
  'INVALID_UINT256',
  'INVALID_TIMESTAMP',
  'INVALID_INTEGER',
  'INVALID_PARAMS',
  // spec 2.3 rules (order-rules.ts)
  'STRATEGY_NOT_WHITELISTED',
  'COLLECTION_OFFER_TOKEN_ID',
  'COLLECTION_OFFER_ASK',
  'TOKEN_ID_REQUIRED',
  'CURRENCY_NOT_WHITELISTED',
  'INVALID_AMOUNT',
  'MIN_PERCENTAGE_TOO_HIGH',
  'PRICE_ZERO',
  'EXPIRED',
  'END_BEFORE_START',
  'PRIVATE_SALE_PARAMS',
  'PRIVATE_SALE_BID',
  'DUTCH_AUCTION_PARAMS',
  'DUTCH_AUCTION_BID',
  'DUTCH_AUCTION_TOO_SHORT',
  // signature (order-signature.ts)
  'INVALID_SIGNATURE_FORMAT',
  'INVALID_SIGNATURE_V',
  'HIGH_S_SIGNATURE',
  'SIGNATURE_MISMATCH',
  // service layer: nonce rules (spec 2.4), storage, chain state
  'NONCE_TOO_LOW',
  'NONCE_USED',
  'NONCE_CAP_REACHED',
  'DUPLICATE_ORDER',
  'UNKNOWN_COLLECTION',
  'NOT_OWNER',
  'NOT_APPROVED',
  'INSUFFICIENT_WETH_BALANCE',
  'INSUFFICIENT_WETH_ALLOWANCE',
  'CONTRACT_SIGNATURE_INVALID',
  'CHAIN_UNAVAILABLE',
] as const;

export type OrderProblemCode = (typeof ORDER_PROBLEM_CODES)[number];

/** One reason an order is refused; field is the request field at fault, null for the whole order. */
export interface OrderProblem {
  code: OrderProblemCode;
  field: string | null;
  message: string;
}

export const ORDER_PROBLEM_MESSAGES: Record<OrderProblemCode, string> = {
  MISSING_FIELD: 'Field is required',
  INVALID_TYPE: 'Field has the wrong JSON type',
  INVALID_ADDRESS: 'Address must be 0x followed by 40 hexadecimal digits',
  INVALID_UINT256: 'Value must be a decimal string of an integer between 0 and 2^256-1',
  INVALID_TIMESTAMP: 'Timestamp must be a whole number of seconds between 0 and 2^53-1',
  INVALID_INTEGER: 'Value must be a whole number between 0 and 2^53-1',
  INVALID_PARAMS: 'Params element is not an address, a boolean or an integer the v1 SDK can encode',
  STRATEGY_NOT_WHITELISTED: 'Strategy is not whitelisted',
  COLLECTION_OFFER_TOKEN_ID: 'Collection offer must have a null tokenId',
  COLLECTION_OFFER_ASK: 'Collection offer must be a bid (isOrderAsk false)',
  TOKEN_ID_REQUIRED: 'TokenId is required unless the order is a collection offer',
  CURRENCY_NOT_WHITELISTED: 'Currency is not whitelisted: the only currency is WETH',
  INVALID_AMOUNT: 'Amount must be 1 for ERC-721 and at least 1 for ERC-1155',
  MIN_PERCENTAGE_TOO_HIGH: 'MinPercentageToAsk cannot be higher than 9800',
  PRICE_ZERO: 'Price must be greater than 0',
  EXPIRED: 'Order is expired: endTime must be in the future',
  END_BEFORE_START: 'EndTime must be after startTime',
  PRIVATE_SALE_PARAMS: 'Private sale params must be exactly one address, the buyer, other than the signer',
  PRIVATE_SALE_BID: 'Private sale must be an ask',
  DUTCH_AUCTION_PARAMS: 'Dutch auction params must be exactly one integer, the start price, above price',
  DUTCH_AUCTION_BID: 'Dutch auction must be an ask',
  DUTCH_AUCTION_TOO_SHORT: 'Dutch auction must last at least 15 minutes',
  INVALID_SIGNATURE_FORMAT: 'Signature must be 0x followed by 130 hexadecimal digits (65 bytes r, s, v)',
  INVALID_SIGNATURE_V: 'Signature v must be 27 or 28',
  HIGH_S_SIGNATURE: 'Signature s must be in the lower half of the curve order',
  SIGNATURE_MISMATCH: 'Signature does not match the signer',
  NONCE_TOO_LOW: 'Nonce is lower than the minimum nonce of the signer',
  NONCE_USED: 'Nonce was already executed or cancelled',
  NONCE_CAP_REACHED: 'No more than 20 orders can be created with the same nonce',
  DUPLICATE_ORDER: 'Order already exists',
  UNKNOWN_COLLECTION: 'Collection is not listed on this marketplace',
  NOT_OWNER: 'Signer does not own the token',
  NOT_APPROVED: 'Signer did not approve to sell the token',
  INSUFFICIENT_WETH_BALANCE: 'Signer WETH balance is lower than the price',
  INSUFFICIENT_WETH_ALLOWANCE: 'Signer did not approve enough WETH to the exchange',
  CONTRACT_SIGNATURE_INVALID: 'Signer contract did not validate the signature (EIP-1271)',
  CHAIN_UNAVAILABLE: 'Chain state could not be read, try again later',
};

export function orderProblem(code: OrderProblemCode, field: string | null, message: string = ORDER_PROBLEM_MESSAGES[code]): OrderProblem {
  return { code, field, message };
}

export function isOrderProblemCode(value: unknown): value is OrderProblemCode {
  return typeof value === 'string' && (ORDER_PROBLEM_CODES as readonly string[]).includes(value);
}
