// Book depth: one side of the live book as a price ladder, for a collection (Collection.depth)
// or for what can trade one token (Token.depth, in ./token.ts): what a depth chart draws.
import { weiToEther } from '../domain/uint256.js';
import { MAX_DEPTH_LEVELS, tokenService, type BookDepth, type DepthLevel } from '../services/tokens.js';
import { BOOK_SIDES } from '../services/token-sql.js';
import { builder } from './builder.js';

export const BookSideEnum = builder.enumType('BookSide', {
  description: 'ASK: live fixed-price listings. BID: live token offers and collection offers.',
  values: BOOK_SIDES,
});

const DepthLevelRef = builder.objectRef<DepthLevel>('DepthLevel').implement({
  description: 'One price level of a book side',
  fields: (t) => ({
    price: t.field({ type: 'Uint256', description: 'wei', resolve: (l) => l.price }),
    priceEth: t.string({ description: 'price in ETH, exact decimal for display', resolve: (l) => weiToEther(l.price) }),
    orderCount: t.exposeInt('orderCount'),
    amount: t.field({ type: 'Uint256', description: 'the sum of the amounts of the orders at this price', resolve: (l) => l.amount }),
    cumulativeAmount: t.field({ type: 'Uint256', description: 'the amount at this price and every better one (the depth curve)', resolve: (l) => l.cumulativeAmount }),
  }),
});

export const BookDepthRef = builder.objectRef<BookDepth>('BookDepth').implement({
  description: 'One side of the live book. Totals and the price range cover the whole side; `levels` holds the best `first` levels.',
  fields: (t) => ({
    side: t.field({ type: BookSideEnum, resolve: (d) => d.side }),
    levelCount: t.exposeInt('levelCount', { description: 'distinct prices on this side' }),
    orderCount: t.exposeInt('orderCount'),
    totalAmount: t.field({ type: 'Uint256', resolve: (d) => d.totalAmount }),
    minPrice: t.field({ type: 'Uint256', nullable: true, description: 'null: no order on this side', resolve: (d) => d.minPrice }),
    maxPrice: t.field({ type: 'Uint256', nullable: true, description: 'null: no order on this side', resolve: (d) => d.maxPrice }),
    levels: t.field({ type: [DepthLevelRef], description: 'best first: asks by ascending price, bids by descending price', resolve: (d) => d.levels }),
  }),
});

builder.prismaObjectField('Collection', 'depth', (t) =>
  t.field({
    type: BookDepthRef,
    description: 'The price ladder of one side of the live book of this collection',
    args: {
      side: t.arg({ type: BookSideEnum, required: true }),
      first: t.arg.int({ required: false, defaultValue: 20, description: `levels to return, 1..${MAX_DEPTH_LEVELS}` }),
    },
    complexity: 5,
    resolve: (c, args, ctx) => tokenService(ctx.services.deps).depth(c.address, null, args.side, args.first ?? 20),
  }),
);
