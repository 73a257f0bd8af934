// Maker orders signed before any timer, for benches that drive the real write path
// (POST /api/v1/orders): distinct signers and nonces, one token id per order (so the event an
// order causes is found by its collection and token), signed with the native secp256k1 addon.
import { createRequire } from 'node:module';
import type { MakerOrderBody } from '../src/domain/maker-order-body.js';

export interface SignedOrder {
  body: Record<string, unknown>;
  collection: string;
  tokenId: string;
}

export interface SignOptions {
  chainId: number;
  exchange: string;
  weth: string;
  /** the standard-sale strategy address */
  ask: string;
  collections: string[];
  /** token ids start here (distinct across calls that share collections) */
  firstTokenId?: number;
  /** signer keys (0x-hex); orders go round-robin over them */
  keys: string[];
}

/** Signs orders for the exchange at `exchange` (EIP-712, the native secp256k1 addon): the body with its signature. */
export async function orderSigner(chainId: number, exchange: string): Promise<(order: MakerOrderBody, key: string) => Record<string, unknown>> {
  const { exchangeDomain, computeOrderDigest } = await import('../src/domain/maker-order.js');
  const { encodeParams, parseParams } = await import('../src/domain/order-params.js');
  const secp = createRequire(import.meta.url)('secp256k1/bindings') as { ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number } };
  const domain = exchangeDomain(chainId, exchange);
  return (order, key) => {
    const params = parseParams(order.params);
    if (!params.ok) throw new Error(params.message);
    const digest = computeOrderDigest(
      {
        ...order,
        price: BigInt(order.price),
        tokenId: BigInt(order.tokenId ?? 0),
        amount: BigInt(order.amount),
        nonce: BigInt(order.nonce),
        startTime: BigInt(order.startTime),
        endTime: BigInt(order.endTime),
        minPercentageToAsk: BigInt(order.minPercentageToAsk),
        params: encodeParams(params.values),
      },
      domain,
    );
    const sig = secp.ecdsaSign(Buffer.from(digest.slice(2), 'hex'), Buffer.from(key.slice(2), 'hex'));
    return { ...order, signature: '0x' + Buffer.from(sig.signature).toString('hex') + (27 + sig.recid).toString(16) };
  };
}

/** `count` asks, round-robin over the collections and the signers. */
export async function signOrders(count: number, opts: SignOptions): Promise<SignedOrder[]> {
  const { Wallet } = await import('ethers');
  const sign = await orderSigner(opts.chainId, opts.exchange);
  const now = Math.floor(Date.now() / 1000);
  const addresses = opts.keys.map((k) => new Wallet(k).address);
  const nonces = new Array<number>(opts.keys.length).fill(0);
  const first = opts.firstTokenId ?? 1;
  const out: SignedOrder[] = [];
  for (let i = 0; i < count; i++) {
    const s = i % opts.keys.length;
    const tokenId = String(first + i);
    const body = sign(
      {
        isOrderAsk: true,
        signer: addresses[s]!,
        collection: opts.collections[i % opts.collections.length]!,
        price: (10n ** 15n * BigInt(1 + ((i * 7919) % 1000))).toString(),
        tokenId,
        amount: '1',
        strategy: opts.ask,
        currency: opts.weth,
        nonce: String(nonces[s]!++),
        startTime: now - 60,
        endTime: now + 7 * 86_400,
        minPercentageToAsk: 9800,
        params: [],
      },
      opts.keys[s]!,
    );
    out.push({ body, collection: body.collection as string, tokenId });
  }
  return out;
}

/** Registers the collections (ERC721) in the database at `url`, as an operator's import would. */
export async function registerCollections(url: string, addresses: string[]) {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO collections (address, owner, name, type) SELECT a, '0x0000000000000000000000000000000000000000', 'Bench ' || a, 'ERC721'
       FROM unnest($1::text[]) AS a ON CONFLICT DO NOTHING`,
      [addresses],
    );
  } finally {
    await client.end();
  }
}
