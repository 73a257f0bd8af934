// The chain the indexer benches drive: the tests' local EVM world (test/helpers/indexer-world.ts:
// Hardhat, the test contracts, the network they make), plus what a bench adds on top: sending
// many transactions per block with explicit nonces and gas (no estimation, no waiting), and an
// order book of signed maker orders to store in every benchmark database.
import type { Wallet } from 'ethers';
import { prng } from '../src/demo/prng.js';
import { signedOrderRow } from '../src/db/signed-order-row.js';
import { exchangeDomain, type MakerOrder } from '../src/domain/maker-order.js';
import { encodeParams } from '../src/domain/order-params.js';
import { COLLECTION_OFFER, STANDARD, startWorld, type World } from '../test/helpers/indexer-world.js';
import { onCleanup } from './helpers.js';

export { COLLECTION_OFFER, STANDARD };
export const ETH = 10n ** 18n;

export type Send = () => Promise<unknown>;

export interface BenchChain extends World {
  rnd: ReturnType<typeof prng>;
  /** gas and the next nonce of `w` for one transaction */
  opts(w: Wallet): { gasLimit: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint; nonce: number };
  /** sends every transaction of one block, then mines it */
  block(sends: Send[]): Promise<void>;
  /** sends in blocks of 100 transactions */
  blocks(sends: Send[]): Promise<void>;
  /** a wallet of `list` other than `w` */
  other(list: Wallet[], w: Wallet): Wallet;
  /** transactions sent so far (explicit nonces) */
  sentCount(): number;
}

/** Starts the EVM world (stopped on cleanup) with a seeded PRNG. */
export async function startBenchChain(seed: number): Promise<BenchChain> {
  const world = await startWorld();
  onCleanup(() => world.stop());
  const { evm } = world;
  const rnd = prng(seed);
  const fee = await evm.provider.getFeeData();
  const gas = { gasLimit: 400_000n, maxFeePerGas: fee.maxFeePerGas! * 4n, maxPriorityFeePerGas: fee.maxPriorityFeePerGas! };
  const nonces = new Map<string, number>();
  for (const w of evm.wallets) nonces.set(w.address, await evm.provider.getTransactionCount(w.address));
  const block = async (sends: Send[]) => {
    await world.rpc('evm_setAutomine', [false]);
    await Promise.all(sends.map((s) => s()));
    await world.rpc('evm_mine');
    await world.rpc('evm_setAutomine', [true]);
  };
  return {
    ...world,
    rnd,
    opts(w) {
      const nonce = nonces.get(w.address)!;
      nonces.set(w.address, nonce + 1);
      return { ...gas, nonce };
    },
    block,
    async blocks(sends) {
      for (let i = 0; i < sends.length; i += 100) await block(sends.slice(i, i + 100));
    },
    other(list, w) {
      let x = w;
      while (x === w) x = rnd.pick(list);
      return x;
    },
    sentCount: () => [...nonces.values()].reduce((s, n) => s + n, 0),
  };
}

export type OrderRow = Awaited<ReturnType<typeof signedOrderRow>>;
export interface Listing {
  hash: string;
  signer: Wallet;
  tokenId: number;
  nonce: bigint;
  price: bigint;
}

/**
 * Signed maker orders for the bench databases: asks at a random price from 0.01 to 1 ETH, live
 * from an hour before `now` for `lifetimeDays`; nonces per signer from 0. `listTokens` lists every
 * ERC-721 token with its owner (the listings a bench fills later).
 */
export function createOrderBook(chain: BenchChain, now: number, lifetimeDays: number) {
  const domain = exchangeDomain(31337, chain.network.exchange);
  const orderNonce = new Map<string, bigint>();
  const rows: OrderRow[] = [];
  const listings = new Map<number, Listing>();
  const nextNonce = (w: Wallet) => {
    const n = orderNonce.get(w.address) ?? 0n;
    orderNonce.set(w.address, n + 1n);
    return n;
  };
  const make = async (w: Wallet, o: Partial<Omit<MakerOrder, 'tokenId'>> & { collection: string; tokenId: bigint | null }) => {
    const order: MakerOrder = {
      isOrderAsk: true,
      signer: w.address,
      price: (BigInt(chain.rnd.int(1, 100)) * ETH) / 100n,
      amount: 1n,
      strategy: STANDARD,
      currency: chain.network.weth,
      nonce: nextNonce(w),
      startTime: BigInt(now - 3600),
      endTime: BigInt(now + lifetimeDays * 86_400),
      minPercentageToAsk: 9800n,
      params: encodeParams([]),
      ...o,
      tokenId: o.tokenId ?? 0n,
    };
    const row = await signedOrderRow(w, domain, order, { tokenId: o.tokenId });
    rows.push(row);
    return { row, order };
  };
  const listTokens = async (owner721: Map<number, Wallet>) => {
    for (const [id, w] of owner721) {
      const { row, order } = await make(w, { collection: chain.c.addresses.erc721, tokenId: BigInt(id) });
      listings.set(id, { hash: row.hash, signer: w, tokenId: id, nonce: order.nonce, price: order.price });
    }
  };
  /** a collection offer on the ERC-721 at 0.1 to 3 ETH */
  const offer = (w: Wallet) =>
    make(w, { isOrderAsk: false, collection: chain.c.addresses.erc721, tokenId: null, strategy: COLLECTION_OFFER, price: (BigInt(chain.rnd.int(10, 300)) * ETH) / 100n });
  /** a fill of a listing, as the exchange's matchAskWithTakerBid sees it (the test exchange's fillAsk) */
  const fill = (l: Listing, buyer: Wallet) => () =>
    chain.c.exchange.connect(buyer).fillAsk(
      { orderHash: l.hash, orderNonce: l.nonce, maker: l.signer.address, strategy: STANDARD, currency: chain.network.weth, collection: chain.c.addresses.erc721, tokenId: l.tokenId, amount: 1n, price: l.price, isERC1155: false },
      chain.opts(buyer),
    );
  return { rows, listings, orderNonce, make, listTokens, offer, fill };
}
