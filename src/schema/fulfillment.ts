// fulfillment: how a taker fills one live order (the calldata, the value, the steps still missing).
import { FILL_FUNCTIONS, FULFILLMENT_STEP_CODES, PAY_WITH, type FulfillmentStep, type TakerOrder, type Transaction } from '../domain/fulfillment.js';
import type { Fulfillment } from '../services/fulfillment.js';
import { builder } from './builder.js';

const PayWithEnum = builder.enumType('PayWith', {
  values: PAY_WITH,
  description: 'How a listing is paid: ETH (matchAskWithTakerBidUsingETHAndWETH, the price sent as value) or WETH (matchAskWithTakerBid)',
});
const FillFunctionEnum = builder.enumType('FillFunction', { values: FILL_FUNCTIONS, description: 'The v1 exchange function that fills the order' });
const FulfillmentStepCodeEnum = builder.enumType('FulfillmentStepCode', { values: FULFILLMENT_STEP_CODES });

const TransactionRef = builder.objectRef<Transaction>('FulfillmentTransaction').implement({
  description: 'A transaction for the taker to send as is',
  fields: (t) => ({
    to: t.expose('to', { type: 'Address' }),
    data: t.exposeString('data', { description: 'calldata, 0x-prefixed hex' }),
    value: t.field({ type: 'Uint256', description: 'wei to send', resolve: (x) => x.value.toString() }),
  }),
});

const TakerOrderRef = builder.objectRef<TakerOrder>('TakerOrder').implement({
  description: "The v1 TakerOrder struct: the taker's side of the match",
  fields: (t) => ({
    isOrderAsk: t.exposeBoolean('isOrderAsk'),
    taker: t.expose('taker', { type: 'Address' }),
    price: t.field({ type: 'Uint256', resolve: (x) => x.price.toString() }),
    tokenId: t.field({ type: 'Uint256', resolve: (x) => x.tokenId.toString() }),
    minPercentageToAsk: t.field({ type: 'Int', resolve: (x) => Number(x.minPercentageToAsk) }),
    params: t.exposeString('params', { description: 'ABI-encoded params, 0x for none' }),
  }),
});

const FulfillmentStepRef = builder.objectRef<FulfillmentStep>('FulfillmentStep').implement({
  description: 'Something the taker must do before the fill can succeed',
  fields: (t) => ({
    code: t.field({ type: FulfillmentStepCodeEnum, resolve: (x) => x.code }),
    message: t.exposeString('message'),
    transaction: t.field({ type: TransactionRef, nullable: true, description: 'null when no transaction can take the step', resolve: (x) => x.transaction }),
  }),
});

const FulfillmentRef = builder.objectRef<Fulfillment>('Fulfillment').implement({
  description: 'How a taker fills a live order, with the chain facts read at one block',
  fields: (t) => ({
    orderHash: t.expose('orderHash', { type: 'Hash' }),
    blockNumber: t.exposeInt('blockNumber', { description: 'the block every chain fact was read at' }),
    function: t.field({ type: FillFunctionEnum, resolve: (x) => x.function }),
    takerOrder: t.field({ type: TakerOrderRef, resolve: (x) => x.takerOrder }),
    transaction: t.field({ type: TransactionRef, description: 'the fill: to the exchange, with this calldata and value', resolve: (x) => x.transaction }),
    steps: t.field({ type: [FulfillmentStepRef], description: 'what the taker must still do, in order', resolve: (x) => x.steps }),
    ready: t.exposeBoolean('ready', { description: 'no step left: the fill can be sent now' }),
  }),
});

builder.queryFields((t) => ({
  fulfillment: t.field({
    type: FulfillmentRef,
    description:
      'How `taker` fills the live order `hash`: the v1 calldata and value, and the steps still missing (WETH, approvals), read on chain at one block. ' +
      '`tokenId`: the token sold into a collection offer (required there, refused otherwise). `payWith`: listings only, default ETH. ' +
      'Errors: NOT_FOUND, ORDER_NOT_FILLABLE (the reason in extensions.problems), BAD_REQUEST, SERVICE_UNAVAILABLE without a chain.',
    args: {
      hash: t.arg({ type: 'Hash', required: true }),
      taker: t.arg({ type: 'Address', required: true }),
      tokenId: t.arg({ type: 'Uint256' }),
      payWith: t.arg({ type: PayWithEnum }),
    },
    resolve: (_root, args, ctx) => ctx.services.fulfillment.fulfillment({ hash: args.hash, taker: args.taker, tokenId: args.tokenId ?? null, payWith: args.payWith ?? null }),
  }),
}));
