// Filling a maker order from the taker side (looksrare-v1-facts.md, "Filling an order"): the
// TakerOrder the v1 exchange matches against the maker order, the calldata of the exchange
// function that fills it, and the transactions a taker may still need first (wrap or approve
// WETH, approve the transfer manager). Pure: the caller supplies the chain facts.
//
// The signatures mirror the v1 SDK's ABI (@looksrare/sdk 0.12.1, LooksRareExchangeAbi.json;
// test/domain/fulfillment.test.ts encodes the same calls with it) and the contract:
// https://github.com/LooksRare/contracts-exchange-v1/blob/c16227781294f23241f80c4bcc3adf77aaa81157/contracts/LooksRareExchange.sol#L186-L356
// and OrderTypes.TakerOrder:
// https://github.com/LooksRare/contracts-exchange-v1/blob/c16227781294f23241f80c4bcc3adf77aaa81157/contracts/libraries/OrderTypes.sol#L31-L38
import { isBytes32Hex } from './bytes32-hex.js';
import { keccak256Hex } from './crypto-backend.js';
import type { MakerOrder } from './maker-order.js';

const TAKER_ORDER_TUPLE = '(bool,address,uint256,uint256,uint256,bytes)';
const MAKER_ORDER_TUPLE = '(bool,address,address,uint256,uint256,uint256,address,address,uint256,uint256,uint256,uint256,bytes,uint8,bytes32,bytes32)';

/** The canonical signatures of the exchange's taker functions and of the step transactions. */
export const FUNCTION_SIGNATURES = {
  matchAskWithTakerBidUsingETHAndWETH: `matchAskWithTakerBidUsingETHAndWETH(${TAKER_ORDER_TUPLE},${MAKER_ORDER_TUPLE})`,
  matchAskWithTakerBid: `matchAskWithTakerBid(${TAKER_ORDER_TUPLE},${MAKER_ORDER_TUPLE})`,
  matchBidWithTakerAsk: `matchBidWithTakerAsk(${TAKER_ORDER_TUPLE},${MAKER_ORDER_TUPLE})`,
  /** WETH9 */
  deposit: 'deposit()',
  /** ERC-20 */
  approve: 'approve(address,uint256)',
  /** ERC-721 and ERC-1155 alike */
  setApprovalForAll: 'setApprovalForAll(address,bool)',
} as const;

const selector = (signature: string) => keccak256Hex(Buffer.from(signature, 'utf8')).slice(0, 10);
const SELECTORS = Object.fromEntries(Object.entries(FUNCTION_SIGNATURES).map(([name, sig]) => [name, selector(sig)])) as Record<keyof typeof FUNCTION_SIGNATURES, string>;

export const PAY_WITH = ['ETH', 'WETH'] as const;
export type PayWith = (typeof PAY_WITH)[number];

export const FILL_FUNCTIONS = ['matchAskWithTakerBidUsingETHAndWETH', 'matchAskWithTakerBid', 'matchBidWithTakerAsk'] as const;
export type FillFunction = (typeof FILL_FUNCTIONS)[number];

/** A maker order as the exchange takes it: the signed struct plus its signature's v, r, s. */
export interface SignedMakerOrder extends MakerOrder {
  v: number;
  r: string;
  s: string;
}

export interface TakerOrder {
  isOrderAsk: boolean;
  taker: string;
  price: bigint;
  tokenId: bigint;
  minPercentageToAsk: bigint;
  params: string;
}

export interface Transaction {
  to: string;
  data: string;
  value: bigint;
}

export const FULFILLMENT_STEP_CODES = [
  'WRAP_ETH',
  'APPROVE_WETH',
  'INSUFFICIENT_ETH',
  'NOT_TOKEN_OWNER',
  'APPROVE_TRANSFER_MANAGER',
] as const;
export type FulfillmentStepCode = (typeof FULFILLMENT_STEP_CODES)[number];

export interface FulfillmentStep {
  code: FulfillmentStepCode;
  message: string;
  /** the transaction that takes the step; null when no transaction can (the taker lacks the asset) */
  transaction: Transaction | null;
}

/**
 * The taker's side of the match. Price and token must equal the maker's for the fixed-price
 * strategies (StrategyStandardSaleForFixedPrice.canExecuteTaker*); a collection offer takes the
 * token the taker names. minPercentageToAsk is the maker's: for a taker ask it is the seller's
 * own floor on what reaches it after fees, and the maker bid's value is the one the order book
 * showed. Params are empty: no v1 strategy reads the taker's.
 */
export function takerOrderFor(maker: SignedMakerOrder, taker: string, tokenId: bigint = maker.tokenId): TakerOrder {
  return { isOrderAsk: !maker.isOrderAsk, taker, price: maker.price, tokenId, minPercentageToAsk: maker.minPercentageToAsk, params: '0x' };
}

/** A listing is bought with ETH (topped up from WETH by the contract) or with WETH only; an offer is sold into. */
export function fillFunctionFor(makerIsOrderAsk: boolean, payWith: PayWith): FillFunction {
  if (!makerIsOrderAsk) return 'matchBidWithTakerAsk';
  return payWith === 'ETH' ? 'matchAskWithTakerBidUsingETHAndWETH' : 'matchAskWithTakerBid';
}

/** The ETH the fill sends: the whole price on the ETH path, nothing otherwise. */
export function fillValue(fn: FillFunction, taker: TakerOrder): bigint {
  return fn === 'matchAskWithTakerBidUsingETHAndWETH' ? taker.price : 0n;
}

// ABI encoding by hand: two tuples, each with one dynamic member (params), so the layout is
// fixed apart from the params' length. test/domain/fulfillment.test.ts compares every encoding
// with ethers' Interface over the SDK's own ABI.
const UINT256_MAX = (1n << 256n) - 1n;

function word(value: bigint | boolean | number): string {
  const v = typeof value === 'bigint' ? value : BigInt(value);
  if (v < 0n || v > UINT256_MAX) throw new RangeError(`not a uint256: ${v}`);
  return v.toString(16).padStart(64, '0');
}

function addressWord(address: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new TypeError(`not an address: ${address}`);
  return address.slice(2).toLowerCase().padStart(64, '0');
}

function bytes32Word(hex: string): string {
  if (!isBytes32Hex(hex)) throw new TypeError(`not a bytes32: ${hex}`);
  return hex.slice(2).toLowerCase();
}

/** `bytes` in a tail: its length, then its data right-padded to whole words. */
function bytesTail(hex: string): string {
  const data = hex === '' || hex === '0x' ? '' : hex.slice(2).toLowerCase();
  if (!/^[0-9a-f]*$/.test(data) || data.length % 2) throw new TypeError(`not bytes: ${hex}`);
  const padded = data.padEnd(Math.ceil(data.length / 64) * 64, '0');
  return word(data.length / 2) + padded;
}

function takerTuple(t: TakerOrder): string {
  // six head words; params is the 6th, its offset the head's size
  return word(t.isOrderAsk) + addressWord(t.taker) + word(t.price) + word(t.tokenId) + word(t.minPercentageToAsk) + word(6 * 32) + bytesTail(t.params);
}

function makerTuple(m: SignedMakerOrder): string {
  if (!Number.isInteger(m.v) || m.v < 0 || m.v > 255) throw new RangeError(`not a uint8: ${m.v}`);
  return (
    word(m.isOrderAsk) + addressWord(m.signer) + addressWord(m.collection) + word(m.price) + word(m.tokenId) + word(m.amount) +
    addressWord(m.strategy) + addressWord(m.currency) + word(m.nonce) + word(m.startTime) + word(m.endTime) + word(m.minPercentageToAsk) +
    word(16 * 32) + word(m.v) + bytes32Word(m.r) + bytes32Word(m.s) + bytesTail(m.params)
  );
}

/** The calldata of `fn(takerOrder, makerOrder)`: selector, the two tuples' offsets, the tuples. */
export function encodeFill(fn: FillFunction, taker: TakerOrder, maker: SignedMakerOrder): string {
  const t = takerTuple(taker);
  const m = makerTuple(maker);
  return SELECTORS[fn] + word(2 * 32) + word(2 * 32 + t.length / 2) + t + m;
}

export const encodeWethDeposit = (): string => SELECTORS.deposit;
export const encodeApprove = (spender: string, amount: bigint): string => SELECTORS.approve + addressWord(spender) + word(amount);
export const encodeSetApprovalForAll = (operator: string, approved: boolean): string => SELECTORS.setApprovalForAll + addressWord(operator) + word(approved);

/** What the chain says about a buyer, at one block. */
export interface BuyerFacts {
  ethBalance: bigint;
  wethBalance: bigint;
  wethAllowance: bigint;
}

/** What the chain says about a seller into an offer, at one block. */
export interface SellerFacts {
  ownsToken: boolean;
  approvedForTransfer: boolean;
}

export interface StepContext {
  exchange: string;
  weth: string;
  collection: string;
  /** the transfer manager for the collection's type */
  transferManager: string;
}

/**
 * The steps a buyer still needs. ETH path: the whole price in ETH (the exchange pulls WETH only
 * for what msg.value lacks, and the service sends the price as value). WETH path: the exchange
 * pulls the price from the taker, so the balance and the allowance to the exchange must cover it.
 * Gas is the taker's wallet's business and not counted.
 */
export function buyerSteps(fn: FillFunction, price: bigint, facts: BuyerFacts, ctx: StepContext): FulfillmentStep[] {
  const out: FulfillmentStep[] = [];
  if (fn === 'matchAskWithTakerBidUsingETHAndWETH') {
    if (facts.ethBalance < price) {
      out.push({
        code: 'INSUFFICIENT_ETH',
        message: `The taker holds ${facts.ethBalance} wei of ETH and the price is ${price} wei: add ETH, or pay with WETH`,
        transaction: null,
      });
    }
    return out;
  }
  if (facts.wethBalance < price) {
    const missing = price - facts.wethBalance;
    out.push({
      code: 'WRAP_ETH',
      message: `The taker holds ${facts.wethBalance} wei of WETH and the price is ${price} wei: wrap ${missing} wei of ETH`,
      transaction: { to: ctx.weth, data: encodeWethDeposit(), value: missing },
    });
  }
  if (facts.wethAllowance < price) {
    out.push({
      code: 'APPROVE_WETH',
      message: `The exchange may spend ${facts.wethAllowance} wei of the taker's WETH and the price is ${price} wei: approve the exchange for the price`,
      transaction: { to: ctx.weth, data: encodeApprove(ctx.exchange, price), value: 0n },
    });
  }
  return out;
}

/** The steps a seller into an offer still needs: hold the token, and let the transfer manager move it. */
export function sellerSteps(tokenId: bigint, amount: bigint, facts: SellerFacts, ctx: StepContext): FulfillmentStep[] {
  const out: FulfillmentStep[] = [];
  if (!facts.ownsToken) {
    out.push({
      code: 'NOT_TOKEN_OWNER',
      message: amount > 1n ? `The taker does not hold ${amount} of token ${tokenId}` : `The taker does not own token ${tokenId}`,
      transaction: null,
    });
  }
  if (!facts.approvedForTransfer) {
    out.push({
      code: 'APPROVE_TRANSFER_MANAGER',
      message: `The transfer manager ${ctx.transferManager} may not move the taker's tokens of ${ctx.collection}: approve it for all`,
      transaction: { to: ctx.collection, data: encodeSetApprovalForAll(ctx.transferManager, true), value: 0n },
    });
  }
  return out;
}
