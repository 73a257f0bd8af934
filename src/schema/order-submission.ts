// Order submission over GraphQL: createOrder, createOrders and the validateOrder dry
// run. A refused order is a value of the CreateOrderResult union (OrderRejected, with every
// problem and its code), never a masked error; the codes are the same as on REST.
import { ORDER_PROBLEM_CODES, type OrderProblem } from '../domain/order-problems.js';
import { ORDER_WARNING_CODES, type OrderWarning } from '../domain/order-warnings.js';
import type { Order as OrderRow } from '../generated/prisma/client.js';
import { requireWriteKey } from '../services/api-key-guards.js';
import { MAX_BATCH, type OrderValidation } from '../services/order-submission.js';
import { OrderRejectedError } from '../services/order-rejected.js';
import { ServiceError } from '../domain/errors.js';
import { builder } from './builder.js';
import { Order } from './order.js';

export const MakerOrderInput = builder.inputType('MakerOrderInput', {
  description:
    'Spec 2.3: a maker order with its EIP-712 signature. The hash is computed by the service. A value of the wrong format is a BAD_USER_INPUT error naming its field (the scalars below); the order rules are checked by the service and answered as problems.',
  fields: (t) => ({
    isOrderAsk: t.boolean({ required: true }),
    signer: t.field({ type: 'Address', required: true, description: 'any letter case' }),
    collection: t.field({ type: 'Address', required: true }),
    price: t.field({ type: 'Uint256', required: true, description: 'wei' }),
    tokenId: t.field({ type: 'Uint256', required: false, description: 'null for a collection offer (signed as 0)' }),
    amount: t.field({ type: 'Uint256', required: true }),
    strategy: t.field({ type: 'Address', required: true }),
    currency: t.field({ type: 'Address', required: true }),
    nonce: t.field({ type: 'Uint256', required: true }),
    startTime: t.field({ type: 'UnixTime', required: true }),
    endTime: t.field({ type: 'UnixTime', required: true }),
    minPercentageToAsk: t.int({ required: true }),
    params: t.field({ type: ['OrderParam'], required: true }),
    signature: t.string({ required: true, description: '65 bytes r || s || v as 0x-hex' }),
  }),
});

const OrderProblemCodeEnum = builder.enumType('OrderProblemCode', { values: ORDER_PROBLEM_CODES });

const OrderProblemRef = builder.objectRef<OrderProblem>('OrderProblem').implement({
  description: 'One reason an order is refused.',
  fields: (t) => ({
    code: t.field({ type: OrderProblemCodeEnum, resolve: (p) => p.code }),
    field: t.exposeString('field', { nullable: true, description: 'the input field at fault; null for the whole order' }),
    message: t.exposeString('message'),
  }),
});

const OrderWarningCodeEnum = builder.enumType('OrderWarningCode', { values: ORDER_WARNING_CODES });

const OrderWarningRef = builder.objectRef<OrderWarning>('OrderWarning').implement({
  description: 'Something about an order its maker may not mean (a listing far under the floor, a bid above a listing, an expiry very far or very near, a price unlike recent sales). Never a refusal: see docs/api.md "Warnings".',
  fields: (t) => ({
    code: t.field({ type: OrderWarningCodeEnum, resolve: (w) => w.code }),
    message: t.exposeString('message'),
    reference: t.exposeString('reference', { description: 'what the order is compared with: wei per unit for a price, seconds for an expiry' }),
    value: t.exposeString('value', { description: "the order's figure in the same unit" }),
  }),
});

// Plain values, not the Error: graphql-js treats a resolver that returns an Error as a throw.
type Rejected = { kind: 'rejected'; message: string; hash: string | null; problems: OrderProblem[] };
type Created = { kind: 'created'; order: OrderRow };

const OrderRejected = builder.objectRef<Rejected>('OrderRejected').implement({
  description: 'The order was not stored. `problems` lists every problem found.',
  fields: (t) => ({
    message: t.exposeString('message', { description: "the first problem's message" }),
    code: t.field({ type: OrderProblemCodeEnum, description: "the first problem's code", resolve: (e) => e.problems[0]!.code }),
    hash: t.exposeString('hash', { nullable: true, description: 'the struct hash, when the fields parse' }),
    problems: t.field({ type: [OrderProblemRef], resolve: (e) => e.problems }),
  }),
});

const CreateOrderSuccess = builder.objectRef<Created>('CreateOrderSuccess').implement({
  fields: (t) => ({
    order: t.field({ type: Order, resolve: (r) => r.order }),
    warnings: t.field({
      type: [OrderWarningRef],
      description: 'the market the stored order meets now, the order itself left out (read only when selected)',
      resolve: ({ order }, _args, ctx) => ctx.services.submissions.warningsForStored(order),
    }),
  }),
});

const CreateOrderResult = builder.unionType('CreateOrderResult', {
  types: [CreateOrderSuccess, OrderRejected],
  resolveType: (value) => (value.kind === 'rejected' ? OrderRejected : CreateOrderSuccess),
});

const OrderValidationRef = builder.objectRef<OrderValidation>('OrderValidation').implement({
  description: 'A dry run of createOrder: what would be stored, or every reason it would not.',
  fields: (t) => ({
    hash: t.exposeString('hash', { nullable: true, description: 'the struct hash (spec 2.5); null when the fields do not parse' }),
    recoveredSigner: t.exposeString('recoveredSigner', {
      nullable: true,
      description: 'the address the signature recovers to (for a contract signer: the signer, when EIP-1271 accepts the signature); null when nothing recovers',
    }),
    signer: t.exposeString('recoveredSigner', {
      nullable: true,
      deprecationReason: 'Use recoveredSigner: this is the recovered address, not the signer field of the input.',
      description: 'the same as recoveredSigner (the name REST v1 clients read)',
    }),
    valid: t.exposeBoolean('valid'),
    problems: t.field({ type: [OrderProblemRef], resolve: (v) => v.problems }),
    warnings: t.field({ type: [OrderWarningRef], description: 'never a refusal; empty when the fields do not parse', resolve: (v) => v.warnings }),
  }),
});

const asResult = (r: OrderRow | OrderRejectedError): Rejected | Created =>
  r instanceof OrderRejectedError ? { kind: 'rejected', message: r.message, hash: r.hash, problems: r.problems } : { kind: 'created', order: r };

builder.queryFields((t) => ({
  validateOrder: t.field({
    type: OrderValidationRef,
    description: 'Checks a maker order exactly as createOrder would, and stores nothing.',
    args: { input: t.arg({ type: MakerOrderInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.submissions.validateOrder(args.input),
  }),
}));

builder.mutationFields((t) => ({
  createOrder: t.field({
    type: CreateOrderResult,
    description: 'Verifies and stores a signed maker order (spec 2.3). X-Looks-Api-Key when write keys are configured.',
    args: { input: t.arg({ type: MakerOrderInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      requireWriteKey(ctx);
      try {
        return asResult(await ctx.services.submissions.createOrder(args.input));
      } catch (err) {
        if (err instanceof OrderRejectedError) return asResult(err);
        throw err;
      }
    },
  }),
  createOrders: t.field({
    type: [CreateOrderResult],
    description: `Up to ${MAX_BATCH} orders, each accepted or refused on its own; results in input order.`,
    args: { inputs: t.arg({ type: [MakerOrderInput], required: true }) },
    complexity: (args) => ({ field: 1, multiplier: Math.min(args.inputs.length, MAX_BATCH) }),
    resolve: async (_root, args, ctx) => {
      requireWriteKey(ctx);
      if (args.inputs.length > MAX_BATCH) throw new ServiceError('BAD_REQUEST', `createOrders takes at most ${MAX_BATCH} orders, got ${args.inputs.length}`);
      return (await ctx.services.submissions.createOrders(args.inputs)).map(asResult);
    },
  }),
}));
