// The address book of the LooksRare v1 deployments (looksrare-v1-facts.md, "Address book") plus a
// local chain whose addresses come from configuration. Every entry can be overridden.
import { normalizeAddress } from './address.js';

export interface Network {
  chainId: number;
  name: string;
  exchange: string;
  weth: string;
  transferManagerERC721: string;
  transferManagerERC1155: string;
  strategies: {
    /** StrategyStandardSaleForFixedPrice: original and V1B */
    standardSale: string[];
    /** StrategyAnyItemFromCollectionForFixedPrice: original and V1B */
    collectionOffer: string[];
    privateSale: string[];
    dutchAuction: string[];
  };
}

export type StrategyKind = keyof Network['strategies'];

const MAINNET: Network = {
  chainId: 1,
  name: 'mainnet',
  exchange: '0x59728544B08AB483533076417FbBB2fD0B17CE3a',
  weth: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
  transferManagerERC721: '0xf42aa99F011A1fA7CDA90E5E98b277E306BcA83e',
  transferManagerERC1155: '0xFED24eC7E22f573c2e08AEF55aA6797Ca2b3A051',
  strategies: {
    standardSale: ['0x56244Bb70CbD3EA9Dc8007399F61dFC065190031', '0x579af6FD30BF83a5Ac0D636bc619f98DBdeb930c'],
    collectionOffer: ['0x86F909F70813CdB1Bc733f4D97Dc6b03B8e7E8F3', '0x09F93623019049c76209C26517AcC2aF9d49c69b'],
    privateSale: ['0x58D83536D3EfeDB9F7f2A1Ec3BDaad2b1A4DD98C'],
    dutchAuction: ['0x3E80795Cae5Ee215EBbDf518689467Bf4243BAe0'],
  },
};

// Goerli: the facts file gives the exchange, WETH and the four fixed-price strategies only.
// Transfer managers, private sale and Dutch auction must come from configuration there.
const GOERLI: Network = {
  chainId: 5,
  name: 'goerli',
  exchange: '0xD112466471b5438C1ca2D218694200e49d81D047',
  weth: '0xB4FBF271143F4FBf7B91A5ded31805e42b2208d6',
  transferManagerERC721: '',
  transferManagerERC1155: '',
  strategies: {
    standardSale: ['0xc771c0A3a7d738A1E12Aa88829A658bAefb32f0f', '0x6ACbeb7f6E225FbC0D1CEe27a40ADC49E7277E57'],
    collectionOffer: ['0xeF722abf61a1937E76DAcFcd58d51c2358dE7D1A', '0xAfb81825DC076500BF19CBf69d443684F2EBd3f6'],
    privateSale: [],
    dutchAuction: [],
  },
};

export const BUILT_IN_NETWORKS: Record<number, Network> = { 1: MAINNET, 5: GOERLI };

export interface NetworkOverrides {
  exchange?: string;
  weth?: string;
  transferManagerERC721?: string;
  transferManagerERC1155?: string;
  standardSale?: string[];
  collectionOffer?: string[];
  privateSale?: string[];
  dutchAuction?: string[];
}

const emptyNetwork = (chainId: number): Network => ({
  chainId,
  name: `chain-${chainId}`,
  exchange: '',
  weth: '',
  transferManagerERC721: '',
  transferManagerERC1155: '',
  strategies: { standardSale: [], collectionOffer: [], privateSale: [], dutchAuction: [] },
});

/** The network for chainId with overrides applied; every address checksummed. */
export function resolveNetwork(chainId: number, overrides: NetworkOverrides = {}): Network {
  const base = BUILT_IN_NETWORKS[chainId] ?? emptyNetwork(chainId);
  const norm = (a: string) => (a ? (normalizeAddress(a) ?? a) : a);
  const list = (l: string[]) => l.map(norm);
  return {
    ...base,
    exchange: norm(overrides.exchange ?? base.exchange),
    weth: norm(overrides.weth ?? base.weth),
    transferManagerERC721: norm(overrides.transferManagerERC721 ?? base.transferManagerERC721),
    transferManagerERC1155: norm(overrides.transferManagerERC1155 ?? base.transferManagerERC1155),
    strategies: {
      standardSale: list(overrides.standardSale ?? base.strategies.standardSale),
      collectionOffer: list(overrides.collectionOffer ?? base.strategies.collectionOffer),
      privateSale: list(overrides.privateSale ?? base.strategies.privateSale),
      dutchAuction: list(overrides.dutchAuction ?? base.strategies.dutchAuction),
    },
  };
}

/** Which whitelisted strategy an address is, or null when it is not whitelisted on this network. */
export function strategyKind(network: Network, strategy: string): StrategyKind | null {
  for (const kind of Object.keys(network.strategies) as StrategyKind[]) {
    if (network.strategies[kind].includes(strategy)) return kind;
  }
  return null;
}

/** The transfer manager a seller approves for a collection of this type ('' when the network has none configured). */
export function transferManagerFor(network: Network, type: 'ERC721' | 'ERC1155'): string {
  return type === 'ERC721' ? network.transferManagerERC721 : network.transferManagerERC1155;
}

/** Names of the problems that make a network unusable for taking orders. */
export function missingNetworkAddresses(network: Network): string[] {
  const missing: string[] = [];
  if (!network.exchange) missing.push('exchange');
  if (!network.weth) missing.push('weth');
  if (!network.strategies.standardSale.length) missing.push('standardSale strategy');
  if (!network.strategies.collectionOffer.length) missing.push('collectionOffer strategy');
  return missing;
}
