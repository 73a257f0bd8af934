// How a taker fills one live order: the TakerOrder, the exchange calldata and value, and the
// steps still missing, every chain fact read at one block. The order must be live now (the
// stored status the indexer keeps, and the time window by the market clock); a dead order says
// why instead of getting calldata that would revert.
import { ChainUnavailableError } from '../chain/chain-unavailable-error.js';
import { normalizeAddress } from '../domain/address.js';
import { badRequest, ServiceError, type FieldProblem } from '../domain/errors.js';
import * as domain from '../domain/fulfillment.js';
import type { FillFunction, FulfillmentStep, PayWith, TakerOrder, Transaction } from '../domain/fulfillment.js';
import { strategyKind, transferManagerFor } from '../domain/networks.js';
import { effectiveStatus, type OrderStatusName } from '../domain/order-status.js';
import { nowSeconds, type ServiceDeps } from './deps.js';

export interface FulfillmentRequest {
  hash: string;
  taker: string;
  /** the token sold into a collection offer: required there, refused elsewhere */
  tokenId?: bigint | null;
  /** how a listing is paid (default ETH); refused for an offer */
  payWith?: PayWith | null;
}

export interface Fulfillment {
  orderHash: string;
  /** the block every chain fact was read at */
  blockNumber: number;
  function: FillFunction;
  takerOrder: TakerOrder;
  /** the fill itself: to the exchange, with this calldata and value */
  transaction: Transaction;
  /** what the taker must still do, in order; empty when the fill can be sent now */
  steps: FulfillmentStep[];
  ready: boolean;
}

export function createFulfillmentService(deps: ServiceDeps) {
  const { network, chain } = deps;

  async function fulfillment(req: FulfillmentRequest): Promise<Fulfillment> {
    const taker = normalizeAddress(req.taker);
    if (!taker) throw badRequest([{ field: 'taker', code: 'INVALID_ADDRESS', message: 'must be an address: 0x followed by 40 hexadecimal digits' }]);
    const hash = req.hash.toLowerCase();
    const order = await deps.db.prisma.order.findUnique({ where: { hash }, include: { collection: { select: { type: true } } } });
    if (!order) throw new ServiceError('NOT_FOUND', `No order has the hash ${hash}`);

    const isCollectionOffer = order.tokenId === null;
    const problems: FieldProblem[] = [];
    if (isCollectionOffer && (req.tokenId === undefined || req.tokenId === null)) {
      problems.push({ field: 'tokenId', code: 'REQUIRED', message: 'a collection offer is filled with a token the taker chooses: name its tokenId' });
    } else if (!isCollectionOffer && req.tokenId !== undefined && req.tokenId !== null) {
      problems.push({ field: 'tokenId', code: 'NOT_ALLOWED', message: 'only a collection offer takes a tokenId: this order names its token' });
    }
    if (!order.isOrderAsk && req.payWith) {
      problems.push({ field: 'payWith', code: 'NOT_ALLOWED', message: 'an offer pays the taker in WETH: payWith applies to listings only' });
    }
    if (problems.length) throw badRequest(problems);

    const now = nowSeconds(deps);
    const status = effectiveStatus(order.status as OrderStatusName, order.endTime, now);
    if (status !== 'VALID') throw notFillable(status, `The order is ${status}: it cannot be filled`);
    if (order.startTime > now) throw notFillable('NOT_STARTED', `The order starts at ${order.startTime}: it cannot be filled before then`);

    // The fixed-price strategies take the taker order takerOrderFor builds; a private sale only
    // from its buyer. A Dutch auction's price moves with the block that fills it: not built here.
    const kind = strategyKind(network, order.strategy);
    if (kind === null) throw notFillable('STRATEGY_NOT_WHITELISTED', `The order's strategy ${order.strategy} is not whitelisted on this network`);
    if (kind === 'dutchAuction') throw notFillable('UNSUPPORTED_STRATEGY', 'The order is a Dutch auction, whose price depends on the block that fills it: fulfillment does not build it');
    if (kind === 'privateSale') {
      const buyer = normalizeAddress((order.paramsList as unknown[] | null)?.[0]);
      if (buyer !== taker) throw badRequest([{ field: 'taker', code: 'NOT_PRIVATE_SALE_BUYER', message: `only ${buyer} may buy this private sale` }]);
    }

    if (!chain) throw new ServiceError('SERVICE_UNAVAILABLE', 'Fulfillment reads the chain, and this service has no RPC_URL configured');
    const maker = {
      isOrderAsk: order.isOrderAsk,
      signer: order.signer,
      collection: order.collectionAddress,
      price: BigInt(order.price.toFixed()),
      tokenId: order.tokenId === null ? 0n : BigInt(order.tokenId.toFixed()),
      amount: BigInt(order.amount.toFixed()),
      strategy: order.strategy,
      currency: order.currencyAddress,
      nonce: BigInt(order.nonce.toFixed()),
      startTime: order.startTime,
      endTime: order.endTime,
      minPercentageToAsk: BigInt(order.minPercentageToAsk),
      params: order.params || '0x',
      v: order.v,
      r: order.r,
      s: order.s,
    };
    const tokenId = isCollectionOffer ? req.tokenId! : maker.tokenId;
    const fn = domain.fillFunctionFor(order.isOrderAsk, req.payWith ?? 'ETH');
    const takerOrder = domain.takerOrderFor(maker, taker, tokenId);
    const transaction = { to: network.exchange, data: domain.encodeFill(fn, takerOrder, maker), value: domain.fillValue(fn, takerOrder) };
    const collectionType = order.collection.type;
    const ctx = { exchange: network.exchange, weth: network.weth, collection: maker.collection, transferManager: transferManagerFor(network, collectionType) };
    if (!order.isOrderAsk && !ctx.transferManager) {
      throw new ServiceError('SERVICE_UNAVAILABLE', `This network has no ${collectionType} transfer manager configured (TRANSFER_MANAGER_${collectionType}_ADDRESS): a seller's approval cannot be checked`);
    }

    try {
      const blockNumber = await chain.headBlock();
      let steps: FulfillmentStep[];
      if (order.isOrderAsk) {
        const [ethBalance, weth] = await Promise.all([
          chain.ethBalance(taker, blockNumber),
          chain.erc20BalanceAndAllowance(network.weth, taker, network.exchange, blockNumber),
        ]);
        steps = domain.buyerSteps(fn, maker.price, { ethBalance, wethBalance: weth.balance, wethAllowance: weth.allowance }, ctx);
      } else {
        const [ownsToken, approvedForTransfer] = await Promise.all([
          chain.holds(maker.collection, collectionType, tokenId, taker, maker.amount, blockNumber),
          chain.isApprovedForAll(maker.collection, taker, ctx.transferManager, blockNumber),
        ]);
        steps = domain.sellerSteps(tokenId, maker.amount, { ownsToken, approvedForTransfer }, ctx);
      }
      return { orderHash: hash, blockNumber, function: fn, takerOrder, transaction, steps, ready: steps.length === 0 };
    } catch (err) {
      if (err instanceof ChainUnavailableError) throw new ServiceError('SERVICE_UNAVAILABLE', 'The chain is not answering: retry after the time in Retry-After');
      throw err;
    }
  }

  /** The order's reason, as the one problem of the failure: its status, or NOT_STARTED. */
  function notFillable(reason: string, message: string): ServiceError {
    return new ServiceError('ORDER_NOT_FILLABLE', message, [{ field: 'hash', code: reason, message }]);
  }
  return { fulfillment };
}

export type FulfillmentService = ReturnType<typeof createFulfillmentService>;
