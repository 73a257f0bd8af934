// The next nonce for a new maker order (spec 2.4).
import { builder } from './builder.js';

builder.queryFields((t) => ({
  nonce: t.field({
    type: 'Uint256',
    description: 'The next nonce this address has not used: above every nonce of its orders and not below its minimum nonce',
    args: { address: t.arg({ type: 'Address', required: true }) },
    resolve: (_root, args, ctx) => ctx.services.nonces.nextNonce(args.address),
  }),
}));
