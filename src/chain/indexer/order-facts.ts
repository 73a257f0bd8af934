// Reads what the chain says about a set of live orders at one block: ownership and transfer-manager
// approval for asks, WETH balance and allowance to the exchange for bids (looksrare-v1-facts.md,
// "Chain events behind the statuses"). Each distinct read is made once even when many orders share
// it (one ownerOf serves every ask on that token). A revert reads as "no" (a token that does not
// exist has no owner); a node that cannot be reached throws, so the batch is retried as a whole.
import { Interface, getAddress, type JsonRpcProvider } from 'ethers';
import { transferManagerFor, type Network } from '../../domain/networks.js';
import type { ChainFacts } from '../../domain/order-status-changes.js';
import type { OrderStatusName } from '../../domain/order-status.js';

export interface LiveOrder {
  hash: string;
  collection: string;
  collectionType: 'ERC721' | 'ERC1155';
  tokenId: bigint | null;
  isOrderAsk: boolean;
  signer: string;
  nonce: bigint;
  amount: bigint;
  price: bigint;
  endTime: bigint;
  status: OrderStatusName;
}

const TOKEN = new Interface([
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function balanceOf(address account, uint256 id) view returns (uint256)',
  'function isApprovedForAll(address owner, address operator) view returns (bool)',
]);
const ERC20 = new Interface([
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
]);

/** How many eth_calls are in flight at once (ethers batches them into JSON-RPC batches). */
const CONCURRENCY = 100;

function isRevert(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'CALL_EXCEPTION' || code === 'BAD_DATA';
}

export { transferManagerFor };

export async function readOrderFacts(
  provider: JsonRpcProvider,
  network: Network,
  orders: readonly LiveOrder[],
  blockTag: number,
): Promise<Map<string, ChainFacts>> {
  // key -> a function making the call; results land in `results` under the same key
  const calls = new Map<string, () => Promise<string | null>>();
  const call = (to: string, data: string) => async () => {
    try {
      return await provider.call({ to, data, blockTag });
    } catch (err) {
      if (isRevert(err)) return null;
      throw err;
    }
  };
  const keys = (o: LiveOrder) => ({
    owner721: `owner|${o.collection}|${o.tokenId}`,
    balance1155: `b1155|${o.collection}|${o.tokenId}|${o.signer}`,
    approval: `approved|${o.collection}|${o.signer}`,
    weth: `weth|${o.signer}`,
    allowance: `allowance|${o.signer}`,
  });

  for (const o of orders) {
    const k = keys(o);
    if (o.isOrderAsk) {
      if (o.tokenId !== null) {
        if (o.collectionType === 'ERC721') calls.set(k.owner721, call(o.collection, TOKEN.encodeFunctionData('ownerOf', [o.tokenId])));
        else calls.set(k.balance1155, call(o.collection, TOKEN.encodeFunctionData('balanceOf', [o.signer, o.tokenId])));
      }
      const manager = transferManagerFor(network, o.collectionType);
      if (manager) calls.set(k.approval, call(o.collection, TOKEN.encodeFunctionData('isApprovedForAll', [o.signer, manager])));
    } else {
      calls.set(k.weth, call(network.weth, ERC20.encodeFunctionData('balanceOf', [o.signer])));
      calls.set(k.allowance, call(network.weth, ERC20.encodeFunctionData('allowance', [o.signer, network.exchange])));
    }
  }

  const results = new Map<string, string | null>();
  const entries = [...calls];
  for (let i = 0; i < entries.length; i += CONCURRENCY) {
    const chunk = entries.slice(i, i + CONCURRENCY);
    const out = await Promise.all(chunk.map(([, fn]) => fn()));
    chunk.forEach(([key], j) => results.set(key, out[j]!));
  }

  const word = (key: string): bigint | null => {
    const r = results.get(key);
    if (r === undefined || r === null || r === '0x') return null;
    try {
      return BigInt(r.slice(0, 66));
    } catch {
      return null;
    }
  };

  const facts = new Map<string, ChainFacts>();
  for (const o of orders) {
    const k = keys(o);
    if (o.isOrderAsk) {
      let ownsAsset = false;
      if (o.tokenId !== null && o.collectionType === 'ERC721') {
        const r = results.get(k.owner721);
        ownsAsset = typeof r === 'string' && r.length >= 66 && getAddress('0x' + r.slice(26, 66)) === o.signer;
      } else if (o.tokenId !== null) {
        ownsAsset = (word(k.balance1155) ?? 0n) >= o.amount;
      }
      // no transfer manager configured for the standard (Goerli's address book lacks them): no verdict
      const approvedForTransfer = transferManagerFor(network, o.collectionType) ? word(k.approval) === 1n : undefined;
      facts.set(o.hash, { ownsAsset, approvedForTransfer });
    } else {
      facts.set(o.hash, { wethBalance: word(k.weth) ?? 0n, wethAllowance: word(k.allowance) ?? 0n });
    }
  }
  return facts;
}
