// A randomized market on a local EVM, driven through the service's real write paths: signed
// listings and offers POSTed to /api/v1/orders (whichever instance answers), and on chain mints,
// fills, transfers, cancels and reorgs that the instances' indexer turns into SALE, TRANSFER,
// MINT, STATUS_CHANGE, CANCEL_* and RETRACTED events. Chain transactions go one at a time, so their nonces need
// no bookkeeping; more lanes POST orders meanwhile. A revert or a refused order is counted, not
// fatal.
import type { Wallet } from 'ethers';
import type { prng } from '../../src/demo/prng.js';
import { COLLECTION_OFFER, STANDARD, type World } from '../../test/helpers/indexer-world.js';
import { signWithEthers6, type MakerOrderBody } from '../../test/helpers/maker-orders.js';

const ETH = 10n ** 18n;

interface Listing {
  hash: string;
  signer: Wallet;
  tokenId: number;
  nonce: number;
  price: bigint;
}

export interface DriverStats {
  /** actions done, by kind */
  done: Map<string, number>;
  /** actions that failed (a revert, an order refused), by kind */
  failed: Map<string, number>;
  /** order POSTs that had to go to the other instance (one down) */
  retried: number;
  /** the first few refusals, for the report */
  reasons: string[];
}

/** `indexedBlock`: the block the service's indexer has committed (a reorg waits for it to index the fill it undoes). */
export function createMarketDriver(world: World, instances: () => string[], rnd: ReturnType<typeof prng>, indexedBlock: () => Promise<number>) {
  const { c, evm, network } = world;
  const minter = evm.wallets[0]!;
  const sellers = evm.wallets.slice(2, 10);
  const buyers = evm.wallets.slice(10, 16);
  const owner721 = new Map<number, Wallet>();
  const owned1155: { holder: Wallet; id: number }[] = [];
  const listings = new Map<string, Listing>();
  const orderNonce = new Map<string, number>();
  let nextToken = 1;
  const stats: DriverStats = { done: new Map(), failed: new Map(), retried: 0, reasons: [] };
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const send = async (p: Promise<{ wait(): Promise<unknown> }>) => (await p).wait();

  async function post(body: MakerOrderBody & { signature: string }): Promise<string | null> {
    const list = instances();
    const start = rnd.int(0, list.length - 1);
    for (let attempt = 0; attempt < 40; attempt++) {
      const base = list[(start + attempt) % list.length]!;
      try {
        const res = await fetch(`${base}/api/v1/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const json = (await res.json()) as { data?: { hash?: string }; message?: string };
        if (res.status === 201) return json.data!.hash!;
        if (res.status < 500) {
          if (stats.reasons.length < 5) stats.reasons.push(`${res.status} ${JSON.stringify(json).slice(0, 200)}`);
          return null;
        }
      } catch {
        // the instance is down: the other one
      }
      stats.retried++;
      if (attempt % list.length === list.length - 1) await new Promise((r) => setTimeout(r, 200));
    }
    return null;
  }

  async function order(w: Wallet, o: Partial<MakerOrderBody> & { collection: string; tokenId: string | null }) {
    const nonce = orderNonce.get(w.address) ?? 0;
    orderNonce.set(w.address, nonce + 1);
    // chain time runs ahead of the wall clock when many blocks are mined: start before both
    const now = Math.min(Math.floor(Date.now() / 1000), await world.chainNow());
    const body: MakerOrderBody = {
      isOrderAsk: true,
      signer: w.address,
      price: ((BigInt(rnd.int(1, 50)) * ETH) / 100n).toString(),
      amount: '1',
      strategy: STANDARD,
      currency: network.weth,
      nonce: String(nonce),
      startTime: now - 60,
      endTime: now + 7 * 86_400,
      minPercentageToAsk: 9800,
      params: [],
      ...o,
    };
    return { hash: await post(await signWithEthers6(w, 31337, network.exchange, body)), nonce, price: BigInt(body.price) };
  }

  const fillOf = (l: Listing) => ({
    orderHash: l.hash,
    orderNonce: l.nonce,
    maker: l.signer.address,
    strategy: STANDARD,
    currency: network.weth,
    collection: c.addresses.erc721,
    tokenId: l.tokenId,
    amount: 1n,
    price: l.price,
    isERC1155: false,
  });

  const actions: [string, number, () => Promise<boolean>][] = [
    [
      'mint ERC-721',
      10,
      async () => {
        const to = rnd.pick(sellers);
        const id = nextToken++;
        await send(c.erc721.connect(minter).mint(to.address, id));
        owner721.set(id, to);
        return true;
      },
    ],
    [
      'mint ERC-1155',
      5,
      async () => {
        const to = rnd.pick(sellers);
        const id = rnd.int(1, 20);
        await send(c.erc1155.connect(minter).mint(to.address, id, 5));
        owned1155.push({ holder: to, id });
        return true;
      },
    ],
    [
      'list ERC-721',
      30,
      async () => {
        const unlisted = [...owner721].filter(([id]) => ![...listings.values()].some((l) => l.tokenId === id));
        if (!unlisted.length) return false;
        const [id, w] = rnd.pick(unlisted);
        const { hash, nonce, price } = await order(w, { collection: c.addresses.erc721, tokenId: String(id) });
        if (hash) listings.set(hash, { hash, signer: w, tokenId: id, nonce, price });
        return hash !== null;
      },
    ],
    [
      'list ERC-1155',
      6,
      async () => {
        if (!owned1155.length) return false;
        const { holder, id } = rnd.pick(owned1155);
        return (await order(holder, { collection: c.addresses.erc1155, tokenId: String(id) })).hash !== null;
      },
    ],
    [
      'offer',
      10,
      async () => {
        const w = rnd.pick(buyers);
        const collectionOffer = rnd.next() < 0.5;
        const tokenId = collectionOffer || !owner721.size ? null : String(rnd.pick([...owner721.keys()]));
        const o = { isOrderAsk: false, collection: c.addresses.erc721, tokenId, strategy: tokenId === null ? COLLECTION_OFFER : STANDARD };
        return (await order(w, o)).hash !== null;
      },
    ],
    [
      'fill',
      14,
      async () => {
        if (!listings.size) return false;
        const l = rnd.pick([...listings.values()]);
        listings.delete(l.hash);
        const buyer = rnd.pick(buyers);
        await send(c.exchange.connect(buyer).fillAsk(fillOf(l), { gasLimit: 1_000_000 }));
        // the buyer sells it on later
        const next = rnd.pick(sellers);
        await send(c.erc721.connect(buyer).transferFrom(buyer.address, next.address, l.tokenId));
        owner721.set(l.tokenId, next);
        return true;
      },
    ],
    [
      // a fill the indexer has seen, replaced by a longer chain without it: RETRACTED rows for
      // its SALE, TRANSFER and status change, and the listing live again
      'reorg',
      2,
      async () => {
        if (!listings.size) return false;
        const l = rnd.pick([...listings.values()]);
        const snapshot = await world.rpc<string>('evm_snapshot');
        await send(c.exchange.connect(rnd.pick(buyers)).fillAsk(fillOf(l), { gasLimit: 1_000_000 }));
        const filledAt = await evm.provider.getBlockNumber();
        for (const deadline = Date.now() + 5000; Date.now() < deadline && (await indexedBlock()) < filledAt; ) await new Promise((r) => setTimeout(r, 50));
        await world.rpc('evm_revert', [snapshot]);
        while ((await evm.provider.getBlockNumber()) <= filledAt) await world.rpc('evm_mine');
        return true;
      },
    ],
    [
      'transfer',
      10,
      async () => {
        if (!owner721.size) return false;
        const [id, from] = rnd.pick([...owner721]);
        let to = from;
        while (to === from) to = rnd.pick(sellers);
        await send(c.erc721.connect(from).transferFrom(from.address, to.address, id));
        owner721.set(id, to);
        for (const l of listings.values()) if (l.tokenId === id) listings.delete(l.hash);
        return true;
      },
    ],
    [
      'cancel',
      8,
      async () => {
        if (!listings.size) return false;
        const l = rnd.pick([...listings.values()]);
        listings.delete(l.hash);
        await send(c.exchange.connect(l.signer).cancelMultipleMakerOrders([l.nonce], { gasLimit: 1_000_000 }));
        return true;
      },
    ],
  ];

  let stopped = false;
  let loop: Promise<void> | null = null;

  return {
    stats,
    /** approvals and WETH for every wallet that trades */
    async setup() {
      for (const s of sellers) {
        await send(c.erc721.connect(s).setApprovalForAll(network.transferManagerERC721, true));
        await send(c.erc1155.connect(s).setApprovalForAll(network.transferManagerERC1155, true));
      }
      for (const b of buyers) {
        await send(c.weth.connect(b).deposit({ value: 100n * ETH }));
        await send(c.weth.connect(b).approve(network.exchange, 2n ** 255n));
        await send(c.erc721.connect(b).setApprovalForAll(network.transferManagerERC721, true));
      }
    },
    /**
     * Acts until stop(), a pause of up to 2 x meanGapMs between actions: one lane of every kind
     * (chain transactions one at a time) and `orderLanes` more that only POST orders, so order
     * writes overlap each other and the indexer's (ids then commit out of their order).
     */
    start(meanGapMs: number, orderLanes = 2) {
      const lane = async (pool: typeof actions) => {
        const weight = pool.reduce((s, a) => s + a[1], 0);
        while (!stopped) {
          let x = rnd.next() * weight;
          const [kind, , act] = pool.find((a) => (x -= a[1]) < 0) ?? pool[0]!;
          try {
            if (await act()) bump(stats.done, kind);
          } catch (err) {
            bump(stats.failed, kind);
            if (stats.reasons.length < 5) stats.reasons.push(`${kind}: ${(err as Error).message.slice(0, 200)}`);
          }
          await new Promise((r) => setTimeout(r, rnd.int(0, 2 * meanGapMs)));
        }
      };
      const posts = actions.filter(([kind]) => kind === 'list ERC-1155' || kind === 'offer');
      loop = Promise.all([lane(actions), ...Array.from({ length: orderLanes }, () => lane(posts))]).then(() => {});
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
