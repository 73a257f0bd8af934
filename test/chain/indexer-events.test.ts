// Decoding of the indexer's events without a chain: the emitter decides the family, ERC-721 and
// ERC-20 Transfer are told apart by their topic count, and logs with a known topic but another
// layout are dropped instead of misread.
import { getAddress } from 'ethers';
import { describe, expect, it } from 'vitest';
import { decodeLog, EXCHANGE_EVENTS, METADATA_EVENTS, NFT_EVENTS, WETH_EVENTS, type RawLog } from '../../src/chain/indexer/events.js';

const EXCHANGE = getAddress('0x' + '11'.repeat(20));
const WETH = getAddress('0x' + '22'.repeat(20));
const NFT = getAddress('0x' + '33'.repeat(20));
const A = getAddress('0x' + 'a1'.repeat(20));
const B = getAddress('0x' + 'b2'.repeat(20));
const sources = { exchange: EXCHANGE, weth: WETH, collections: new Set([NFT]) };

function raw(address: string, encoded: { topics: string[]; data: string }): RawLog {
  return { address: address.toLowerCase(), topics: encoded.topics, data: encoded.data, blockNumber: 7, blockHash: '0x' + 'cd'.repeat(32), transactionHash: '0x' + 'ef'.repeat(32), logIndex: 3 };
}
const ev = (iface: typeof NFT_EVENTS, name: string, args: unknown[]) => iface.encodeEventLog(iface.getEvent(name)!, args);

describe('indexer event decoding', () => {
  it('decodes the exchange fill with the v1 field layout', () => {
    const hash = '0x' + '9a'.repeat(32);
    const e = decodeLog(raw(EXCHANGE, ev(EXCHANGE_EVENTS, 'TakerBid', [hash, 5n, A, B, NFT, WETH, NFT, 42n, 1n, 10n ** 18n])), sources);
    expect(e).toEqual({
      kind: 'TakerBid', orderHash: hash, orderNonce: 5n, taker: A, maker: B, strategy: NFT, currency: WETH, collection: NFT, tokenId: 42n, amount: 1n, price: 10n ** 18n,
      blockNumber: 7, blockHash: '0x' + 'cd'.repeat(32), txHash: '0x' + 'ef'.repeat(32), logIndex: 3,
    });
  });

  it('tells an ERC-721 Transfer (token id indexed) from a WETH Transfer (amount in data)', () => {
    expect(decodeLog(raw(NFT, ev(NFT_EVENTS, 'Transfer', [A, B, 9n])), sources)).toMatchObject({ kind: 'Transfer', collection: NFT, from: A, to: B, ids: [9n], amounts: [1n] });
    expect(decodeLog(raw(WETH, ev(WETH_EVENTS, 'Transfer', [A, B, 9n])), sources)).toMatchObject({ kind: 'WETHTransfer', accounts: [A, B], amount: 9n });
    // the other layout from the other kind of contract is not consumed
    expect(decodeLog(raw(NFT, ev(WETH_EVENTS, 'Transfer', [A, B, 9n])), sources)).toBeNull();
    expect(decodeLog(raw(WETH, ev(NFT_EVENTS, 'Transfer', [A, B, 9n])), sources)).toBeNull();
  });

  it('decodes ERC-1155 single and batch transfers, approvals and WETH balance events', () => {
    expect(decodeLog(raw(NFT, ev(NFT_EVENTS, 'TransferSingle', [A, A, B, 3n, 4n])), sources)).toMatchObject({ kind: 'TransferSingle', from: A, to: B, ids: [3n], amounts: [4n] });
    expect(decodeLog(raw(NFT, ev(NFT_EVENTS, 'TransferBatch', [A, A, B, [1n, 2n], [5n, 6n]])), sources)).toMatchObject({ kind: 'TransferBatch', ids: [1n, 2n], amounts: [5n, 6n] });
    expect(decodeLog(raw(NFT, ev(NFT_EVENTS, 'ApprovalForAll', [A, B, false])), sources)).toMatchObject({ kind: 'ApprovalForAll', owner: A, operator: B, approved: false });
    expect(decodeLog(raw(WETH, ev(WETH_EVENTS, 'Approval', [A, B, 7n])), sources)).toMatchObject({ kind: 'WETHApproval', accounts: [A], spender: B, amount: 7n });
    expect(decodeLog(raw(WETH, ev(WETH_EVENTS, 'Deposit', [A, 7n])), sources)).toMatchObject({ kind: 'Deposit', accounts: [A] });
    expect(decodeLog(raw(WETH, ev(WETH_EVENTS, 'Withdrawal', [B, 7n])), sources)).toMatchObject({ kind: 'Withdrawal', accounts: [B] });
  });

  it('decodes EIP-4906 updates and ERC-1155 URI as the token ranges whose metadata changed', () => {
    expect(decodeLog(raw(NFT, ev(METADATA_EVENTS, 'MetadataUpdate', [9n])), sources)).toMatchObject({ kind: 'MetadataUpdate', collection: NFT, fromId: 9n, toId: 9n });
    expect(decodeLog(raw(NFT, ev(METADATA_EVENTS, 'BatchMetadataUpdate', [0n, (1n << 256n) - 1n])), sources)).toMatchObject({ kind: 'MetadataUpdate', fromId: 0n, toId: (1n << 256n) - 1n });
    expect(decodeLog(raw(NFT, ev(METADATA_EVENTS, 'URI', ['https://x/{id}.json', 4n])), sources)).toMatchObject({ kind: 'MetadataUpdate', fromId: 4n, toId: 4n });
    // an inverted range names no token; an update from an unknown emitter is not ours
    expect(decodeLog(raw(NFT, ev(METADATA_EVENTS, 'BatchMetadataUpdate', [5n, 1n])), sources)).toBeNull();
    expect(decodeLog(raw(A, ev(METADATA_EVENTS, 'MetadataUpdate', [9n])), sources)).toBeNull();
  });

  it('drops logs of unknown emitters and malformed logs with a known topic', () => {
    expect(decodeLog(raw(A, ev(NFT_EVENTS, 'Transfer', [A, B, 9n])), sources)).toBeNull();
    const t = ev(NFT_EVENTS, 'Transfer', [A, B, 9n]);
    const dirty = { ...t, topics: [t.topics[0]!, '0x' + 'ff'.repeat(12) + A.slice(2).toLowerCase(), t.topics[2]!, t.topics[3]!] };
    expect(decodeLog(raw(NFT, dirty), sources)).toBeNull();
    const short = ev(WETH_EVENTS, 'Deposit', [A, 7n]);
    expect(decodeLog(raw(WETH, { ...short, data: '0x' }), sources)).toBeNull();
    const batch = ev(EXCHANGE_EVENTS, 'CancelMultipleOrders', [A, [1n]]);
    expect(decodeLog(raw(EXCHANGE, { ...batch, data: '0x1234' }), sources)).toBeNull();
  });
});
