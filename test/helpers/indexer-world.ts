// A local EVM with the test contracts, the network they make, signed orders stored directly in a
// test database, and an oracle that computes an order's status by asking the chain directly
// (no indexer involved), for the indexer tests and benchmark.
import { getAddress, type ContractTransactionResponse, type JsonRpcProvider, type Wallet } from 'ethers';
import { createIndexerProvider } from '../../src/chain/indexer/indexer-provider.js';
import type { Database } from '../../src/db/database.js';
import { signedOrderRow } from '../../src/db/signed-order-row.js';
import { exchangeDomain, type MakerOrder } from '../../src/domain/maker-order.js';
import { resolveNetwork, type Network } from '../../src/domain/networks.js';
import { encodeParams } from '../../src/domain/order-params.js';
import { deriveStatus } from '../../src/domain/order-status-rules.js';
import type { OrderStatusName } from '../../src/domain/order-status.js';
import { deployTestContracts, type TestContracts } from './evm/deploy.js';
import { startLocalEvm, type LocalEvm } from './evm/local-evm.js';

/** Sends a transaction and waits for its receipt (mined at once on the local EVM). */
export const send = async (p: Promise<ContractTransactionResponse>) => (await (await p).wait())!;

export const STANDARD = getAddress('0x' + '5a'.repeat(20));
export const COLLECTION_OFFER = getAddress('0x' + '6b'.repeat(20));

/** The service's settings for this world's chain and contracts (startTestApp's environment). */
export function worldEnv(w: Pick<World, 'evm' | 'network'>): Record<string, string> {
  const n = w.network;
  return {
    CHAIN_ID: '31337',
    RPC_URL: w.evm.rpcUrl,
    EXCHANGE_ADDRESS: n.exchange,
    WETH_ADDRESS: n.weth,
    TRANSFER_MANAGER_ERC721_ADDRESS: n.transferManagerERC721,
    TRANSFER_MANAGER_ERC1155_ADDRESS: n.transferManagerERC1155,
    STRATEGY_STANDARD_SALE_ADDRESSES: STANDARD,
    STRATEGY_COLLECTION_OFFER_ADDRESSES: COLLECTION_OFFER,
  };
}

export interface World {
  evm: LocalEvm;
  c: TestContracts;
  network: Network;
  /** a provider for the indexer, configured like production (no request cache) */
  indexerProvider(): JsonRpcProvider;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** the latest block's timestamp */
  chainNow(): Promise<number>;
  stop(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  const evm = await startLocalEvm();
  const c = await deployTestContracts(evm);
  const network = resolveNetwork(31337, {
    exchange: c.addresses.exchange,
    weth: c.addresses.weth,
    transferManagerERC721: c.addresses.transferManager721,
    transferManagerERC1155: c.addresses.transferManager1155,
    standardSale: [STANDARD],
    collectionOffer: [COLLECTION_OFFER],
  });
  const providers: JsonRpcProvider[] = [];
  return {
    evm,
    c,
    network,
    indexerProvider() {
      const p = createIndexerProvider(evm.rpcUrl, 31337);
      providers.push(p);
      return p;
    },
    rpc: (method, params = []) => evm.provider.send(method, params),
    chainNow: async () => (await evm.provider.getBlock('latest'))!.timestamp,
    async stop() {
      for (const p of providers) p.destroy();
      await evm.stop();
    },
  };
}

export async function registerCollections(db: Database, list: { address: string; type: 'ERC721' | 'ERC1155' }[]) {
  await db.prisma.collection.createMany({ data: list.map((x) => ({ address: x.address, owner: x.address, type: x.type, name: x.address.slice(0, 10) })), skipDuplicates: true });
}

export interface StoredOrder {
  hash: string;
  isOrderAsk: boolean;
  signer: string;
  collection: string;
  collectionType: 'ERC721' | 'ERC1155';
  tokenId: bigint | null;
  amount: bigint;
  price: bigint;
  nonce: bigint;
  endTime: bigint;
}

export interface OrderSpec {
  isOrderAsk?: boolean;
  collection: string;
  collectionType?: 'ERC721' | 'ERC1155';
  /** null: a collection offer */
  tokenId: bigint | null;
  amount?: bigint;
  price?: bigint;
  nonce: bigint;
  startTime?: bigint;
  endTime?: bigint;
  status?: OrderStatusName;
}

/** Signs a maker order with `wallet` and stores it (as the submission service would have). */
export async function storeOrder(db: Database, world: World, wallet: Wallet, spec: OrderSpec, nowSec: number): Promise<StoredOrder> {
  const isOrderAsk = spec.isOrderAsk ?? true;
  const order: MakerOrder = {
    isOrderAsk,
    signer: wallet.address,
    collection: spec.collection,
    price: spec.price ?? 10n ** 18n,
    tokenId: spec.tokenId ?? 0n,
    amount: spec.amount ?? 1n,
    strategy: spec.tokenId === null ? COLLECTION_OFFER : STANDARD,
    currency: world.network.weth,
    nonce: spec.nonce,
    startTime: spec.startTime ?? BigInt(nowSec - 3600),
    endTime: spec.endTime ?? BigInt(nowSec + 30 * 86_400),
    minPercentageToAsk: 9800n,
    params: encodeParams([]),
  };
  const row = await signedOrderRow(wallet, exchangeDomain(31337, world.network.exchange), order, { tokenId: spec.tokenId, status: spec.status });
  await db.prisma.order.create({ data: row });
  return {
    hash: row.hash,
    isOrderAsk,
    signer: wallet.address,
    collection: spec.collection,
    collectionType: spec.collectionType ?? (spec.collection === world.c.addresses.erc1155 ? 'ERC1155' : 'ERC721'),
    tokenId: spec.tokenId,
    amount: order.amount,
    price: order.price,
    nonce: order.nonce,
    endTime: order.endTime,
  };
}

export async function storedStatus(db: Database, hash: string): Promise<OrderStatusName> {
  const [row] = await db.sql.query<{ status: OrderStatusName }>('SELECT status::text AS status FROM orders WHERE hash = $1', [hash]);
  if (!row) throw new Error(`no order ${hash}`);
  return row.status;
}

/** Hashes carried by TakerBid/TakerAsk logs of the exchange, read straight from the chain. */
export async function filledHashes(world: World): Promise<Set<string>> {
  const ex = world.c.exchange;
  const logs = [...(await ex.queryFilter('TakerBid')), ...(await ex.queryFilter('TakerAsk'))];
  return new Set(logs.map((l) => String((l as unknown as { args: { orderHash: string } }).args.orderHash).toLowerCase()));
}

/** The status the chain implies for an order, asked directly (the test oracle). */
export async function chainStatus(world: World, o: StoredOrder, filled: ReadonlySet<string>, nowSec: number): Promise<OrderStatusName> {
  const { c, network } = world;
  const nonceDead = (await c.exchange.isUserOrderNonceExecutedOrCancelled(o.signer, o.nonce)) || o.nonce < (await c.exchange.userMinOrderNonce(o.signer));
  const subject = { isOrderAsk: o.isOrderAsk, price: o.price, endTime: o.endTime, status: 'VALID' as const };
  const base = { filled: filled.has(o.hash), nonceDead };
  if (o.isOrderAsk) {
    let ownsAsset = false;
    if (o.collectionType === 'ERC721') {
      const nft = c.erc721.attach(o.collection) as typeof c.erc721;
      ownsAsset = (await nft.ownerOf(o.tokenId!).catch(() => null)) === o.signer;
      const approvedForTransfer = await nft.isApprovedForAll(o.signer, network.transferManagerERC721);
      return deriveStatus(subject, { ...base, ownsAsset, approvedForTransfer }, BigInt(nowSec));
    }
    const nft = c.erc1155.attach(o.collection) as typeof c.erc1155;
    ownsAsset = (await nft.balanceOf(o.signer, o.tokenId!)) >= o.amount;
    const approvedForTransfer = await nft.isApprovedForAll(o.signer, network.transferManagerERC1155);
    return deriveStatus(subject, { ...base, ownsAsset, approvedForTransfer }, BigInt(nowSec));
  }
  const [wethBalance, wethAllowance] = await Promise.all([c.weth.balanceOf(o.signer), c.weth.allowance(o.signer, network.exchange)]);
  return deriveStatus(subject, { ...base, wethBalance, wethAllowance }, BigInt(nowSec));
}

/** A contract that emits whatever 4-topic log its calldata spells (topic0..topic3, no data):
 * raw ERC-721 Transfer logs, including burns to the zero address that the test ERC-721 cannot do. */
export const LOG4_EMITTER_INITCODE = '0x6012600c60003960126000f3' + '606035604035602035600035' + '60006000a400';

export async function deployLogEmitter(deployer: Wallet): Promise<string> {
  const tx = await deployer.sendTransaction({ data: LOG4_EMITTER_INITCODE });
  const receipt = await tx.wait();
  return getAddress(receipt!.contractAddress!);
}
