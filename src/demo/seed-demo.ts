// The demo marketplace loaded into a new embedded database (and by `npm run seed`): collections
// of both types with full metadata, orders of every kind and status signed by deterministic
// wallets with real EIP-712 signatures and server-computed hashes, ownership that agrees with
// the listings, a year of sales so every stats window has data, and listing-reward market data.
// Deterministic: the same PRNG seed gives the same wallets, collections, tokens and prices;
// times are relative to the moment of seeding so the windows are always populated.
import { demoBanner, demoLogo } from './demo-collection-images.js';
import { Wallet, getAddress, keccak256, toUtf8Bytes } from 'ethers';
import { exchangeDomain, type MakerOrder } from '../domain/maker-order.js';
import { encodeParams, type ParamValue } from '../domain/order-params.js';
import type { OrderStatusName } from '../domain/order-status.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { Services } from '../services/index.js';
import { prng } from './prng.js';
import { seedDemoTokenMetadata } from './demo-token-metadata.js';
import { signedOrderRow } from '../db/signed-order-row.js';

const DAY = 86_400;
const ETH = 10n ** 18n;

const demoAddress = (label: string) => getAddress(keccak256(toUtf8Bytes(label)).slice(0, 42));

export const DEMO_WALLETS = Array.from({ length: 12 }, (_, i) => new Wallet(keccak256(toUtf8Bytes(`marketplace-demo-wallet-${i}`))));

export const DEMO_COLLECTIONS = [
  { name: 'Lantern Owls', symbol: 'OWL', type: 'ERC721', supply: 120, floorEth: 0.8, verified: true, explicit: false },
  { name: 'Tidal Glyphs', symbol: 'GLYPH', type: 'ERC721', supply: 90, floorEth: 2.5, verified: true, explicit: false },
  { name: 'Copper Moths', symbol: 'MOTH', type: 'ERC721', supply: 60, floorEth: 0.12, verified: true, explicit: false },
  { name: 'Night Market Passes', symbol: 'NMP', type: 'ERC1155', supply: 12, floorEth: 0.05, verified: true, explicit: false },
  { name: 'Basalt Relics', symbol: 'RELIC', type: 'ERC1155', supply: 8, floorEth: 0.4, verified: false, explicit: false },
  { name: 'Velvet Afterhours', symbol: 'VELVET', type: 'ERC721', supply: 40, floorEth: 0.3, verified: true, explicit: true },
  { name: 'Paper Comets', symbol: null, type: 'ERC721', supply: 30, floorEth: 0.02, verified: false, explicit: false },
] as const;

export const demoCollectionAddress = (i: number) => demoAddress(`marketplace-demo-collection-${i}`);

const ethToWei = (eth: number) => (BigInt(Math.round(eth * 1e6)) * ETH) / 1_000_000n;

export interface SeedSummary {
  collections: number;
  orders: number;
  sales: number;
  wallets: number;
}

export async function seedDemo(services: Services, opts: { seed?: number; orderCount?: number; saleCount?: number } = {}): Promise<SeedSummary> {
  const { db, network } = services.deps;
  const { prisma } = db;
  const rnd = prng(opts.seed ?? 20221122);
  const now = Math.floor(services.now().getTime() / 1000);
  const orderCount = opts.orderCount ?? 420;
  const saleCount = opts.saleCount ?? 3000;
  if (!network.exchange || !network.weth || !network.strategies.standardSale.length || !network.strategies.collectionOffer.length) {
    throw new Error(`cannot seed: the network of chain ${network.chainId} lacks exchange, WETH or fixed-price strategies`);
  }
  const domain = exchangeDomain(network.chainId, network.exchange);
  const standard = network.strategies.standardSale.at(-1)!;
  const collectionStrategy = network.strategies.collectionOffer.at(-1)!;
  const privateSale = network.strategies.privateSale[0];
  const dutch = network.strategies.dutchAuction[0];

  // Collections with full metadata.
  const collections = DEMO_COLLECTIONS.map((c, i) => ({ ...c, address: demoCollectionAddress(i) }));
  for (const [i, c] of collections.entries()) {
    const slug = c.name.toLowerCase().replaceAll(' ', '-');
    await services.collections.upsertCollection({
      address: c.address,
      type: c.type,
      owner: DEMO_WALLETS[i % DEMO_WALLETS.length]!.address,
      setter: i % 2 === 0 ? DEMO_WALLETS[(i + 1) % DEMO_WALLETS.length]!.address : null,
      admin: i % 3 === 0 ? DEMO_WALLETS[(i + 2) % DEMO_WALLETS.length]!.address : null,
      name: c.name,
      description: `${c.name}: a demo ${c.type} collection of the local marketplace.`,
      symbol: c.symbol,
      websiteLink: `https://example.com/${slug}`,
      alphaLink: `https://alpha.example.com/${slug}`,
      bravoLink: i % 2 === 0 ? `https://bravo.example.com/${slug}` : null,
      charlieLink: i % 3 === 0 ? `https://charlie.example.com/${slug}` : null,
      deltaLink: null,
      echoLink: i === 0 ? `https://echo.example.com/${slug}` : null,
      foxtrotLink: null,
      isVerified: c.verified,
      isExplicit: c.explicit,
      logoURI: null,
      bannerURI: null,
    });
    // drawn offline (an admin's URL must be http(s); the demo's own images are data: URIs the
    // media worker hosts on start)
    await prisma.$executeRaw`UPDATE collections SET logo_uri = ${demoLogo(i)}, banner_uri = ${demoBanner(i)} WHERE address = ${c.address}`;
  }

  // Ownership: every token has an owner (ERC-1155: several holders).
  const holdings: { collection: string; tokenId: bigint; owner: string; balance: bigint }[] = [];
  for (const c of collections) {
    for (let t = 1; t <= c.supply; t++) {
      if (c.type === 'ERC721') holdings.push({ collection: c.address, tokenId: BigInt(t), owner: rnd.pick(DEMO_WALLETS).address, balance: 1n });
      else {
        const owners = new Set(Array.from({ length: rnd.int(1, 4) }, () => rnd.pick(DEMO_WALLETS).address));
        for (const owner of owners) holdings.push({ collection: c.address, tokenId: BigInt(t), owner, balance: BigInt(rnd.int(1, 25)) });
      }
    }
  }
  await prisma.tokenBalance.createMany({
    data: holdings.map((h) => ({ collectionAddress: h.collection, tokenId: h.tokenId.toString(), owner: h.owner, balance: h.balance.toString() })),
  });
  for (const c of collections) {
    const mine = holdings.filter((h) => h.collection === c.address);
    await prisma.collectionSupply.create({
      data: {
        collectionAddress: c.address,
        totalSupply: mine.reduce((s, h) => s + h.balance, 0n).toString(),
        countOwners: new Set(mine.map((h) => h.owner)).size,
      },
    });
  }

  // Orders, signed for real.
  const nonces = new Map<string, bigint>();
  const nextNonce = (a: string) => {
    const n = nonces.get(a) ?? 0n;
    nonces.set(a, n + 1n);
    return n;
  };
  const walletOf = new Map(DEMO_WALLETS.map((w) => [w.address, w]));
  const rows = [];
  for (let i = 0; i < orderCount; i++) {
    const c = collections[i % collections.length]!;
    const floor = ethToWei(c.floorEth);
    const kindRoll = rnd.next();
    let isOrderAsk = true;
    let strategy = standard;
    let tokenId: bigint | null;
    let signer: Wallet;
    let params: ParamValue[] = [];
    let price: bigint;
    let amount = 1n;
    const holding = rnd.pick(holdings.filter((h) => h.collection === c.address));
    if (kindRoll < 0.55) {
      // standard listing by the token's owner, priced around the floor
      signer = walletOf.get(holding.owner)!;
      tokenId = holding.tokenId;
      if (c.type === 'ERC1155') amount = BigInt(rnd.int(1, Number(holding.balance)));
      price = (floor * BigInt(100 + rnd.int(0, 150))) / 100n;
    } else if (kindRoll < 0.8) {
      // standard offer on a token
      isOrderAsk = false;
      signer = rnd.pick(DEMO_WALLETS);
      tokenId = holding.tokenId;
      price = (floor * BigInt(rnd.int(50, 95))) / 100n;
    } else if (kindRoll < 0.92) {
      // collection offer: any token of the collection; signed tokenId 0
      isOrderAsk = false;
      strategy = collectionStrategy;
      signer = rnd.pick(DEMO_WALLETS);
      tokenId = null;
      price = (floor * BigInt(rnd.int(40, 90))) / 100n;
    } else if (kindRoll < 0.96 && privateSale) {
      signer = walletOf.get(holding.owner)!;
      strategy = privateSale;
      tokenId = holding.tokenId;
      price = (floor * BigInt(rnd.int(60, 110))) / 100n;
      const buyer = DEMO_WALLETS.find((w) => w.address !== signer.address)!;
      params = [{ type: 'address', value: buyer.address }];
    } else if (dutch) {
      signer = walletOf.get(holding.owner)!;
      strategy = dutch;
      tokenId = holding.tokenId;
      price = (floor * BigInt(rnd.int(80, 120))) / 100n;
      params = [{ type: 'uint256', value: price * 3n }];
    } else {
      signer = walletOf.get(holding.owner)!;
      tokenId = holding.tokenId;
      price = floor * 2n;
    }
    const age = rnd.int(0, 60) * DAY + rnd.int(0, DAY);
    const startTime = BigInt(now - age);
    const statusRoll = rnd.next();
    let status: OrderStatusName = 'VALID';
    let endTime = BigInt(now + rnd.int(1, 90) * DAY);
    if (statusRoll < 0.08) endTime = BigInt(now - rnd.int(1, 20) * DAY); // past end: reads as EXPIRED
    else if (statusRoll < 0.13) status = 'EXECUTED';
    else if (statusRoll < 0.18) status = 'CANCELLED';
    else if (statusRoll < 0.21) status = isOrderAsk ? 'ERC_APPROVAL' : 'ERC20_APPROVAL';
    else if (statusRoll < 0.24) status = isOrderAsk ? 'INVALID_OWNER' : 'ERC20_BALANCE';
    if (endTime <= startTime) endTime = startTime + BigInt(DAY);
    const encoded = encodeParams(params);
    const order: MakerOrder = {
      isOrderAsk,
      signer: signer.address,
      collection: c.address,
      price,
      tokenId: tokenId ?? 0n,
      amount,
      strategy,
      currency: network.weth,
      nonce: nextNonce(signer.address),
      startTime,
      endTime,
      minPercentageToAsk: 9800n - BigInt(rnd.int(0, 3)) * 100n,
      params: encoded,
    };
    rows.push(await signedOrderRow(signer, domain, order, { tokenId, params, status, createdAt: new Date((now - age) * 1000) }));
  }
  // Oldest first: NEWEST sorts by insertion order.
  rows.sort((a, b) => a.createdAt!.getTime() - b.createdAt!.getTime());

  // A year of sales, denser in recent weeks, around each collection's floor.
  const drawn = [];
  for (let i = 0; i < saleCount; i++) {
    const c = collections[rnd.int(0, collections.length - 1)]!;
    const recent = rnd.next() < 0.45;
    const ago = recent ? rnd.int(0, 30 * DAY) : rnd.int(0, 365 * DAY);
    const buyer = rnd.pick(DEMO_WALLETS).address;
    let seller = rnd.pick(DEMO_WALLETS).address;
    if (seller === buyer) seller = DEMO_WALLETS[(DEMO_WALLETS.findIndex((w) => w.address === buyer) + 1) % DEMO_WALLETS.length]!.address;
    drawn.push({
      collectionAddress: c.address,
      tokenId: String(rnd.int(1, c.supply)),
      amount: '1',
      price: ((ethToWei(c.floorEth) * BigInt(rnd.int(70, 180))) / 100n).toString(),
      currencyAddress: network.weth,
      buyer,
      seller,
      orderHash: null,
      strategy: standard,
      isTakerAsk: rnd.next() < 0.3,
      logIndex: 0,
      timestamp: new Date((now - ago) * 1000),
    });
  }
  // As a chain has them: blocks (and so transactions) follow time. (The draws above stay as they
  // were, so everything drawn after them is the same.)
  const sales = drawn
    .map((sale, i) => ({ sale, i }))
    .sort((a, b) => a.sale.timestamp.getTime() - b.sale.timestamp.getTime() || a.i - b.i)
    .map(({ sale }, n) => ({ ...sale, blockNumber: BigInt(18_000_000 + n), txHash: keccak256(toUtf8Bytes(`demo-sale-${n}`)) }));
  await writeHistoryInTimeOrder(services, rows, sales);
  await services.sales.rebuildSaleBuckets();

  // Floor history: a walk over the last 40 days, then the floor the listings give now.
  for (const c of collections) {
    let floor = ethToWei(c.floorEth);
    const points = [];
    for (let d = 40; d >= 1; d -= rnd.int(1, 4)) {
      floor = (floor * BigInt(rnd.int(85, 118))) / 100n;
      points.push({ collectionAddress: c.address, floorPrice: floor.toString(), at: new Date((now - d * DAY) * 1000) });
    }
    await prisma.floorPoint.createMany({ data: points });
    await services.stats.recordFloor(c.address);
  }

  // Listing-reward market data: fresh for most collections, stale for one.
  const global = collections.map((c, i) => ({
    collectionAddress: c.address,
    volume24hGlobal: (ethToWei(c.floorEth) * BigInt(rnd.int(20, 400))).toString(),
    floorGlobal: ((ethToWei(c.floorEth) * BigInt(rnd.int(90, 105))) / 100n).toString(),
    observedAt: new Date((now - (i === 2 ? 3 * DAY : rnd.int(60, 3600))) * 1000),
  }));
  await prisma.globalMarketData.createMany({ data: global });

  // Token metadata, traits and ranks (generated offline).
  await seedDemoTokenMetadata(services, collections);

  return { collections: collections.length, orders: rows.length, sales: sales.length, wallets: DEMO_WALLETS.length };
}

/**
 * Orders and sales inserted oldest first, interleaved: the market event log (written by their
 * triggers, ids in insertion order) then reads in time order, as it does when it follows a chain.
 * Each run of orders or sales between two of the other kind is one statement.
 */
async function writeHistoryInTimeOrder(services: Services, orders: Prisma.OrderCreateManyInput[], sales: Prisma.SaleCreateManyInput[]): Promise<void> {
  const { prisma } = services.deps.db;
  const at = (d: Date | string | undefined) => new Date(d!).getTime();
  let o = 0;
  let s = 0;
  while (o < orders.length || s < sales.length) {
    const nextSale = s < sales.length ? at(sales[s]!.timestamp) : Infinity;
    const firstOrder = o;
    while (o < orders.length && at(orders[o]!.createdAt) <= nextSale) o++;
    if (o > firstOrder) await prisma.order.createMany({ data: orders.slice(firstOrder, o) });
    const nextOrder = o < orders.length ? at(orders[o]!.createdAt) : Infinity;
    const firstSale = s;
    while (s < sales.length && at(sales[s]!.timestamp) < nextOrder) s++;
    if (s > firstSale) await prisma.sale.createMany({ data: sales.slice(firstSale, s) });
  }
}
