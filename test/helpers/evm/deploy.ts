/**
 * Deploys the test contracts (contracts/*.sol, compiled into
 * test/fixtures/contracts/artifacts.json by scripts/compile-contracts.mjs) to a LocalEvm.
 * Deployer: evm.wallets[0]. The ERC-1271 wallet is owned by evm.wallets[1].
 */
import { readFileSync } from 'node:fs';
import { ethers } from 'ethers';
import type {
  AddressLike,
  BaseContract,
  BaseContractMethod,
  BigNumberish,
  BytesLike,
  ContractRunner,
  ContractTransactionResponse,
  InterfaceAbi,
} from 'ethers';
import type { LocalEvm } from './local-evm.js';

export interface Artifact {
  abi: InterfaceAbi;
  bytecode: string;
}
export type ContractName =
  | 'TestERC721'
  | 'TestERC1155'
  | 'WETH9'
  | 'ERC1271Wallet'
  | 'TestTransferManager'
  | 'TestExchange';

let artifactsCache: Record<ContractName, Artifact> | undefined;
export function loadArtifacts(): Record<ContractName, Artifact> {
  artifactsCache ??= JSON.parse(
    readFileSync(new URL('../../fixtures/contracts/artifacts.json', import.meta.url), 'utf8'),
  ) as Record<ContractName, Artifact>;
  return artifactsCache;
}

// ---- typed contract shapes (hand-written, TypeChain-like) ----
type View<A extends unknown[], R> = BaseContractMethod<A, R, R>;
type Send<A extends unknown[], R = void> = BaseContractMethod<A, R, ContractTransactionResponse>;
export type TypedContract<M> = Omit<BaseContract, 'connect'> &
  M & { connect(runner: ContractRunner | null): TypedContract<M> };

export type TestERC721 = TypedContract<{
  name: View<[], string>;
  symbol: View<[], string>;
  owner: View<[], string>;
  totalSupply: View<[], bigint>;
  supportsInterface: View<[interfaceId: BytesLike], boolean>;
  balanceOf: View<[account: AddressLike], bigint>;
  ownerOf: View<[tokenId: BigNumberish], string>;
  getApproved: View<[tokenId: BigNumberish], string>;
  isApprovedForAll: View<[account: AddressLike, operator: AddressLike], boolean>;
  mint: Send<[to: AddressLike, tokenId: BigNumberish]>;
  approve: Send<[to: AddressLike, tokenId: BigNumberish]>;
  setApprovalForAll: Send<[operator: AddressLike, approved: boolean]>;
  transferFrom: Send<[from: AddressLike, to: AddressLike, tokenId: BigNumberish]>;
  'safeTransferFrom(address,address,uint256)': Send<[from: AddressLike, to: AddressLike, tokenId: BigNumberish]>;
  'safeTransferFrom(address,address,uint256,bytes)': Send<
    [from: AddressLike, to: AddressLike, tokenId: BigNumberish, data: BytesLike]
  >;
  transferOwnership: Send<[newOwner: AddressLike]>;
  tokenURI: View<[tokenId: BigNumberish], string>;
  setBaseURI: Send<[baseURI: string]>;
  setTokenURI: Send<[tokenId: BigNumberish, uri: string]>;
  announceBatchMetadataUpdate: Send<[fromTokenId: BigNumberish, toTokenId: BigNumberish]>;
  contractURI: View<[], string>;
  setContractURI: Send<[uri: string]>;
}>;

export type TestERC1155 = TypedContract<{
  name: View<[], string>;
  symbol: View<[], string>;
  owner: View<[], string>;
  supportsInterface: View<[interfaceId: BytesLike], boolean>;
  balanceOf: View<[account: AddressLike, id: BigNumberish], bigint>;
  balanceOfBatch: View<[accounts: AddressLike[], ids: BigNumberish[]], bigint[]>;
  isApprovedForAll: View<[account: AddressLike, operator: AddressLike], boolean>;
  mint: Send<[to: AddressLike, id: BigNumberish, amount: BigNumberish]>;
  setApprovalForAll: Send<[operator: AddressLike, approved: boolean]>;
  safeTransferFrom: Send<
    [from: AddressLike, to: AddressLike, id: BigNumberish, amount: BigNumberish, data: BytesLike]
  >;
  safeBatchTransferFrom: Send<
    [from: AddressLike, to: AddressLike, ids: BigNumberish[], amounts: BigNumberish[], data: BytesLike]
  >;
  transferOwnership: Send<[newOwner: AddressLike]>;
  uri: View<[id: BigNumberish], string>;
  setURI: Send<[value: string, id: BigNumberish]>;
}>;

export type WETH9 = TypedContract<{
  name: View<[], string>;
  symbol: View<[], string>;
  decimals: View<[], bigint>;
  totalSupply: View<[], bigint>;
  balanceOf: View<[account: AddressLike], bigint>;
  allowance: View<[owner: AddressLike, spender: AddressLike], bigint>;
  deposit: Send<[]>;
  withdraw: Send<[wad: BigNumberish]>;
  approve: Send<[guy: AddressLike, wad: BigNumberish], boolean>;
  transfer: Send<[dst: AddressLike, wad: BigNumberish], boolean>;
  transferFrom: Send<[src: AddressLike, dst: AddressLike, wad: BigNumberish], boolean>;
}>;

export type ERC1271Wallet = TypedContract<{
  owner: View<[], string>;
  isValidSignature: View<[hash: BytesLike, signature: BytesLike], string>;
  supportsInterface: View<[interfaceId: BytesLike], boolean>;
  execute: Send<[target: AddressLike, data: BytesLike], string>;
}>;

export type TestTransferManager = TypedContract<{
  isERC1155: View<[], boolean>;
  exchange: View<[], string>;
  setExchange: Send<[exchange: AddressLike]>;
  transferNonFungibleToken: Send<
    [collection: AddressLike, from: AddressLike, to: AddressLike, tokenId: BigNumberish, amount: BigNumberish]
  >;
}>;

/** Argument of TestExchange.fillAsk / fillBid. The taker is msg.sender. */
export interface ExchangeFill {
  orderHash: BytesLike;
  orderNonce: BigNumberish;
  /** seller for fillAsk (maker ask), buyer for fillBid (maker bid) */
  maker: AddressLike;
  strategy: AddressLike;
  /** must be the WETH address */
  currency: AddressLike;
  collection: AddressLike;
  tokenId: BigNumberish;
  amount: BigNumberish;
  price: BigNumberish;
  isERC1155: boolean;
}

export type TestExchange = TypedContract<{
  WETH: View<[], string>;
  transferManagerERC721: View<[], string>;
  transferManagerERC1155: View<[], string>;
  userMinOrderNonce: View<[user: AddressLike], bigint>;
  isUserOrderNonceExecutedOrCancelled: View<[user: AddressLike, nonce: BigNumberish], boolean>;
  cancelAllOrdersForSender: Send<[minNonce: BigNumberish]>;
  cancelMultipleMakerOrders: Send<[orderNonces: BigNumberish[]]>;
  /** maker ask filled by msg.sender's bid: emits TakerBid */
  fillAsk: Send<[fill: ExchangeFill]>;
  /** maker bid filled by msg.sender's ask: emits TakerAsk */
  fillBid: Send<[fill: ExchangeFill]>;
  /** the v1 EIP-712 domain separator (the v1 taker functions check signatures against it) */
  DOMAIN_SEPARATOR: View<[], string>;
  isCollectionOfferStrategy: View<[strategy: AddressLike], boolean>;
  /** which strategies the v1 taker functions treat as collection offers (any token) */
  setCollectionOfferStrategy: Send<[strategy: AddressLike, isCollectionOffer: boolean]>;
}>;

export interface TestContracts {
  erc721: TestERC721;
  erc1155: TestERC1155;
  weth: WETH9;
  wallet1271: ERC1271Wallet;
  transferManager721: TestTransferManager;
  transferManager1155: TestTransferManager;
  exchange: TestExchange;
  addresses: {
    erc721: string;
    erc1155: string;
    weth: string;
    wallet1271: string;
    transferManager721: string;
    transferManager1155: string;
    exchange: string;
  };
}

/** Deploys one artifact and waits for it to be mined (needs automine or a mining caller). */
export async function deployContract<T>(name: ContractName, deployer: ethers.Signer, ...args: unknown[]): Promise<T> {
  const { abi, bytecode } = loadArtifacts()[name];
  const factory = new ethers.ContractFactory(abi, bytecode, deployer);
  const contract = await factory.deploy(...args);
  await contract.waitForDeployment();
  return contract as unknown as T;
}

/** Deploys every test contract with wallets[0] and wires the transfer managers to the exchange. */
export async function deployTestContracts(evm: LocalEvm): Promise<TestContracts> {
  const deployer = evm.wallets[0];
  const walletOwner = evm.wallets[1];
  if (!deployer || !walletOwner) throw new Error('LocalEvm needs at least 2 wallets');

  const erc721 = await deployContract<TestERC721>('TestERC721', deployer, 'Test ERC721', 'T721');
  const erc1155 = await deployContract<TestERC1155>('TestERC1155', deployer, 'Test ERC1155', 'T1155');
  const weth = await deployContract<WETH9>('WETH9', deployer);
  const wallet1271 = await deployContract<ERC1271Wallet>('ERC1271Wallet', deployer, walletOwner.address);
  const transferManager721 = await deployContract<TestTransferManager>('TestTransferManager', deployer, false);
  const transferManager1155 = await deployContract<TestTransferManager>('TestTransferManager', deployer, true);

  const addresses = {
    erc721: await erc721.getAddress(),
    erc1155: await erc1155.getAddress(),
    weth: await weth.getAddress(),
    wallet1271: await wallet1271.getAddress(),
    transferManager721: await transferManager721.getAddress(),
    transferManager1155: await transferManager1155.getAddress(),
    exchange: '',
  };
  const exchange = await deployContract<TestExchange>(
    'TestExchange',
    deployer,
    addresses.weth,
    addresses.transferManager721,
    addresses.transferManager1155,
  );
  addresses.exchange = await exchange.getAddress();
  await (await transferManager721.setExchange(addresses.exchange)).wait();
  await (await transferManager1155.setExchange(addresses.exchange)).wait();

  return { erc721, erc1155, weth, wallet1271, transferManager721, transferManager1155, exchange, addresses };
}
