// Order.fillability: whether an order can be filled now and, when not, why and what would fix it
// (src/domain/order-fillability.ts). The read engine renders it in the page's statement
// (src/read-engine/fillability-reads.ts); this resolver is the reference.
import { UNFILLABLE_REASONS } from '../domain/order-fillability.js';
import type { CurrencyShortfall, OrderFillability } from '../services/order-fillability.js';
import { builder } from './builder.js';
import { Order } from './order.js';

const UnfillableReasonEnum = builder.enumType('UnfillableReason', {
  description: 'Why an order cannot be filled now: its status (spec 3) when not VALID, or NOT_STARTED before its startTime.',
  values: UNFILLABLE_REASONS,
});

const CurrencyShortfallRef = builder.objectRef<CurrencyShortfall>('CurrencyShortfall').implement({
  description: "How much of its price a bid lacks in the order currency (WETH), by the indexer's last read of the maker on chain.",
  fields: (t) => ({
    currency: t.expose('currency', { type: 'Address', description: 'the order currency' }),
    needed: t.expose('needed', { type: 'Uint256', description: 'the order price in wei: what the exchange moves from the maker' }),
    balance: t.expose('balance', { type: 'Uint256', description: "the maker's balance (balanceOf) at blockNumber" }),
    allowance: t.expose('allowance', { type: 'Uint256', description: "what the maker allowed the exchange to spend (allowance) at blockNumber" }),
    shortfall: t.expose('shortfall', { type: 'Uint256', description: 'needed less balance (ERC20_BALANCE) or less allowance (ERC20_APPROVAL), at least 0' }),
    blockNumber: t.exposeString('blockNumber', { description: 'the block the indexer read balance and allowance at' }),
  }),
});

const OrderFillabilityRef = builder.objectRef<OrderFillability>('OrderFillability').implement({
  description: 'Whether the order can be filled now; when not, why, whether it can come back, and what would fix it.',
  fields: (t) => ({
    fillable: t.exposeBoolean('fillable'),
    reason: t.field({ type: UnfillableReasonEnum, nullable: true, description: 'null when fillable', resolve: (f) => f.reason }),
    canReturn: t.exposeBoolean('canReturn', { nullable: true, description: 'false for EXECUTED, CANCELLED and EXPIRED; null when fillable' }),
    fix: t.exposeString('fix', { nullable: true, description: 'what would make it fillable; null where nothing can' }),
    operator: t.expose('operator', { type: 'Address', nullable: true, description: 'the address the fix approves: the transfer manager (ERC_APPROVAL) or the exchange (ERC20_APPROVAL)' }),
    blockNumber: t.exposeString('blockNumber', { nullable: true, description: 'the block of the chain event that made the order what it is, or of the indexer batch that saw it expire (null when no indexed event did)' }),
    txHash: t.expose('txHash', { type: 'Hash', nullable: true, description: "that event's transaction; null for a status re-derived from chain state, and for an expiry" }),
    missing: t.field({
      type: CurrencyShortfallRef,
      nullable: true,
      description: 'for ERC20_BALANCE and ERC20_APPROVAL, how much WETH the maker lacks; null for other reasons, or where the indexer keeps no read of the maker',
      resolve: (f) => f.missing,
    }),
  }),
});

builder.prismaObjectField(Order, 'fillability', (t) =>
  t.field({
    type: OrderFillabilityRef,
    description: 'Why the order is or is not fillable now (docs/api.md, "Why an order is not fillable")',
    resolve: (o, _args, ctx) =>
      ctx.services.fillability.fillabilityOf(
        {
          hash: o.hash, status: o.status, startTime: o.startTime, endTime: o.endTime, collectionAddress: o.collectionAddress,
          signer: o.signer, currencyAddress: o.currencyAddress, price: o.price,
        },
        BigInt(Math.floor(ctx.now().getTime() / 1000)),
        {
          collectionType: async (address) => (await ctx.loaders.collection.load(address))?.type ?? null,
          statusEvent: (key) => ctx.loaders.statusEvents.load(key),
          currencyHolding: (key) => ctx.loaders.currencyHoldings.load(key),
        },
      ),
  }),
);
