// Reads the chain state that order submission depends on, through one JSON-RPC provider.
// Every read is a plain eth_call, at the latest block or at the block a submission pins its
// checks to (the order records that block, so the indexer can settle the submission race); a failing call (no such contract, a
// revert) is reported as "unknown" rather than guessed.
import { Contract, JsonRpcProvider, getAddress, type BlockTag } from 'ethers';
import { ChainUnavailableError } from './chain-unavailable-error.js';
import type { Network } from '../domain/networks.js';
import { ERC1155_ABI, ERC1271_ABI, ERC1271_MAGIC, ERC165_ABI, ERC20_ABI, ERC721_ABI, INTERFACE_ERC1155, INTERFACE_ERC721, CONTRACT_URI_ABI, TOKEN_URI_ABI } from './abis.js';

export interface DiscoveredCollection {
  address: string;
  type: 'ERC721' | 'ERC1155';
  name: string | null;
  symbol: string | null;
  owner: string | null;
  totalSupply: bigint | null;
}

export { ChainUnavailableError };

export type TokenUriAnswer = { ok: true; uri: string } | { ok: false; message: string };

/** A contract-level failure (revert, no such function) reads as "no answer"; a node that cannot be reached stays an error. */
async function optional<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof ChainUnavailableError) throw err;
    return null;
  }
}

export function createChainReader(rpcUrl: string, network: Network) {
  // cacheTimeout -1: never answer a read from ethers' 250 ms request cache (state moves per block).
  const provider = new JsonRpcProvider(rpcUrl, network.chainId, { staticNetwork: true, cacheTimeout: -1 });

  async function call<T>(p: Promise<T>): Promise<T> {
    try {
      return await p;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'CALL_EXCEPTION' || code === 'BAD_DATA') throw err;
      throw new ChainUnavailableError(`chain read failed: ${(err as Error).message}`);
    }
  }

  async function isContract(address: string): Promise<boolean> {
    return (await call(provider.getCode(address))) !== '0x';
  }

  /** EIP-1271: does the contract at `wallet` accept `signature` over `digest`? */
  async function isValidContractSignature(wallet: string, digest: string, signature: string): Promise<boolean> {
    const c = new Contract(wallet, ERC1271_ABI, provider);
    const r = await optional(call(c.getFunction('isValidSignature').staticCall(digest, signature)));
    return typeof r === 'string' && r.toLowerCase() === ERC1271_MAGIC;
  }

  async function supports(address: string, id: string): Promise<boolean> {
    const c = new Contract(address, ERC165_ABI, provider);
    return (await optional(call(c.getFunction('supportsInterface').staticCall(id)))) === true;
  }

  /** ERC-165 type detection and metadata of an unknown collection; null when it is neither. */
  async function discoverCollection(address: string): Promise<DiscoveredCollection | null> {
    if (!(await isContract(address))) return null;
    const type = (await supports(address, INTERFACE_ERC721)) ? 'ERC721' : (await supports(address, INTERFACE_ERC1155)) ? 'ERC1155' : null;
    if (!type) return null;
    const c = new Contract(address, ERC721_ABI, provider);
    const [name, symbol, owner, totalSupply] = await Promise.all([
      optional(call(c.getFunction('name').staticCall() as Promise<string>)),
      optional(call(c.getFunction('symbol').staticCall() as Promise<string>)),
      optional(call(c.getFunction('owner').staticCall() as Promise<string>)),
      optional(call(c.getFunction('totalSupply').staticCall() as Promise<bigint>)),
    ]);
    return { address, type, name, symbol, owner: owner ? getAddress(owner) : null, totalSupply };
  }

  /** Whether `owner` holds at least `amount` of the token (ERC-721 ownerOf, ERC-1155 balance). */
  async function holds(collection: string, type: 'ERC721' | 'ERC1155', tokenId: bigint, owner: string, amount: bigint, blockTag: BlockTag = 'latest'): Promise<boolean> {
    if (type === 'ERC721') {
      const c = new Contract(collection, ERC721_ABI, provider);
      const who = await optional(call(c.getFunction('ownerOf').staticCall(tokenId, { blockTag }) as Promise<string>));
      return who !== null && getAddress(who) === owner;
    }
    const c = new Contract(collection, ERC1155_ABI, provider);
    const balance = await optional(call(c.getFunction('balanceOf').staticCall(owner, tokenId, { blockTag }) as Promise<bigint>));
    return balance !== null && balance >= amount;
  }

  async function isApprovedForAll(collection: string, owner: string, operator: string, blockTag: BlockTag = 'latest'): Promise<boolean> {
    const c = new Contract(collection, ERC721_ABI, provider);
    return (await optional(call(c.getFunction('isApprovedForAll').staticCall(owner, operator, { blockTag })))) === true;
  }

  async function erc20BalanceAndAllowance(token: string, owner: string, spender: string, blockTag: BlockTag = 'latest'): Promise<{ balance: bigint; allowance: bigint }> {
    const c = new Contract(token, ERC20_ABI, provider);
    const [balance, allowance] = await Promise.all([
      call(c.getFunction('balanceOf').staticCall(owner, { blockTag }) as Promise<bigint>),
      call(c.getFunction('allowance').staticCall(owner, spender, { blockTag }) as Promise<bigint>),
    ]);
    return { balance, allowance };
  }

  /**
   * The metadata URI of each token (ERC-721 tokenURI, ERC-1155 uri). The calls are made together,
   * so ethers sends them as one JSON-RPC batch (up to its batchMaxCount per request). A revert
   * (no such token, no metadata extension) is that token's answer; an unreachable node throws.
   */
  async function tokenUris(collection: string, type: 'ERC721' | 'ERC1155', ids: readonly bigint[]): Promise<TokenUriAnswer[]> {
    const c = new Contract(collection, TOKEN_URI_ABI, provider);
    const fn = c.getFunction(type === 'ERC721' ? 'tokenURI' : 'uri');
    const answers = await Promise.allSettled(ids.map((id) => call(fn.staticCall(id) as Promise<string>)));
    return answers.map((a): TokenUriAnswer => {
      if (a.status === 'fulfilled') return { ok: true, uri: a.value };
      if (a.reason instanceof ChainUnavailableError) throw a.reason;
      return { ok: false, message: `${type === 'ERC721' ? 'tokenURI' : 'uri'} reverted or answered no string` };
    });
  }

  /** ERC-7572 contractURI(): the URI, or null when the contract has none (a revert, no string, or ""). */
  async function contractUri(collection: string): Promise<string | null> {
    const c = new Contract(collection, CONTRACT_URI_ABI, provider);
    try {
      const uri = (await call(c.getFunction('contractURI').staticCall() as Promise<string>)).trim();
      return uri === '' ? null : uri;
    } catch (err) {
      if (err instanceof ChainUnavailableError) throw err;
      return null;
    }
  }

  async function ethBalance(owner: string, blockTag: BlockTag = 'latest'): Promise<bigint> {
    return call(provider.getBalance(owner, blockTag));
  }

  async function blockNumber(): Promise<number> {
    return call(provider.getBlockNumber());
  }

  // Concurrent submissions share one eth_blockNumber call (never a remembered answer: an order
  // checked at an older block than needed could be refused for an approval just mined).
  let headInFlight: Promise<number> | null = null;
  /** The current head, to pin a submission's checks to (shared by callers asking at the same time). */
  function headBlock(): Promise<number> {
    if (!headInFlight) {
      headInFlight = blockNumber().finally(() => {
        headInFlight = null;
      });
    }
    return headInFlight;
  }

  return { provider, isContract, isValidContractSignature, discoverCollection, holds, tokenUris, contractUri, isApprovedForAll, erc20BalanceAndAllowance, ethBalance, blockNumber, headBlock, destroy: () => provider.destroy() };
}

export type ChainReader = ReturnType<typeof createChainReader>;
