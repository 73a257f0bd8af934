// The examples of POST /orders and /orders/validate: a MakerOrder body, the Order a 201 answers
// for it and its dry run. A fixed signed order cannot be an example that works when tried: it
// expires, and once stored a second POST is DUPLICATE_ORDER. So the served document signs a fresh
// listing with a demo wallet (src/demo/seed-demo.ts), valid from now for 30 days at the signer's
// next nonce; the demo marketplace stores it as is. The fixed demo order stays as the template
// of the document built without services (tests and tools).
import { computeOrderHash, exchangeDomain, MAKER_ORDER_TYPES } from '../../domain/maker-order.js';
import { parseMakerOrderInput, toSignedMakerOrder } from '../../domain/maker-order-input.js';
import { paramsForResponse } from '../../domain/order-params.js';
import type { OrderWarning } from '../../domain/order-warnings.js';
import type { Services } from '../../services/index.js';
import examples from './examples.json' with { type: 'json' };

export type MakerOrderExample = typeof examples.makerOrder;

export interface OrderExamples {
  /** the POST body */
  makerOrder: MakerOrderExample;
  /** the v1 Order POST /orders answers for it (201) */
  order: Record<string, unknown>;
  /** what POST /orders/validate answers for it */
  validation: { hash: string; signer: string; valid: true; problems: []; warnings: OrderWarning[] };
}

const VALID_FOR_SECONDS = 30 * 86_400;

/** The answers the service gives for a well-formed signed body, derived from it by the domain code. */
export function orderExamplesFor(makerOrder: MakerOrderExample): OrderExamples {
  const parsed = parseMakerOrderInput(makerOrder);
  if (!parsed.ok) throw new Error(`the order example does not parse: ${parsed.problems.map((p) => p.message).join('; ')}`);
  const signed = toSignedMakerOrder(parsed.value);
  const hash = computeOrderHash(signed);
  const sig = makerOrder.signature.toLowerCase();
  const p = parsed.value;
  return {
    makerOrder,
    order: {
      hash,
      collectionAddress: p.collection,
      tokenId: p.tokenId === null ? null : p.tokenId.toString(),
      isOrderAsk: p.isOrderAsk,
      signer: p.signer,
      strategy: p.strategy,
      currencyAddress: p.currency,
      amount: p.amount.toString(),
      price: p.price.toString(),
      nonce: p.nonce.toString(),
      startTime: Number(p.startTime),
      endTime: Number(p.endTime),
      minPercentageToAsk: Number(p.minPercentageToAsk),
      params: paramsForResponse(p.encodedParams),
      status: 'VALID',
      signature: sig,
      r: `0x${sig.slice(2, 66)}`,
      s: `0x${sig.slice(66, 130)}`,
      v: parseInt(sig.slice(130, 132), 16),
    },
    validation: { hash, signer: p.signer, valid: true, problems: [], warnings: [] },
  };
}

export const TEMPLATE_ORDER_EXAMPLES = orderExamplesFor(examples.makerOrder);

/** The template listing signed now by its demo wallet, at that wallet's next nonce. */
export async function signOrderExamples(services: Services): Promise<OrderExamples> {
  const { network } = services.deps;
  if (!network.exchange) return TEMPLATE_ORDER_EXAMPLES;
  // loaded on first use: the demo wallets are derived when the module loads
  const { DEMO_WALLETS } = await import('../../demo/seed-demo.js');
  const wallet = DEMO_WALLETS.find((w) => w.address === examples.makerOrder.signer);
  if (!wallet) throw new Error(`the order example's signer ${examples.makerOrder.signer} is not a demo wallet`);
  const now = Math.floor(services.now().getTime() / 1000);
  const body = {
    ...examples.makerOrder,
    nonce: await services.nonces.nextNonce(wallet.address),
    startTime: now - 60,
    endTime: now + VALID_FOR_SECONDS,
  };
  const parsed = parseMakerOrderInput(body);
  if (!parsed.ok) throw new Error('the order example does not parse');
  const signature = await wallet.signTypedData(exchangeDomain(network.chainId, network.exchange), MAKER_ORDER_TYPES, toSignedMakerOrder(parsed.value));
  const signed = orderExamplesFor({ ...body, signature });
  // the warnings it meets on the demo market (the template listing is under its collection's floor)
  const { warnings } = await services.submissions.validateOrder(signed.makerOrder);
  return { ...signed, validation: { ...signed.validation, warnings } };
}
