import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ethers } from 'ethers';
import { startLocalEvm, type LocalEvm } from '../helpers/evm/local-evm.js';
import { deployTestContracts, type ExchangeFill, type TestContracts } from '../helpers/evm/deploy.js';

const TAKER_BID_SIG =
  'TakerBid(bytes32,uint256,address,address,address,address,address,uint256,uint256,uint256)';
const TAKER_ASK_SIG =
  'TakerAsk(bytes32,uint256,address,address,address,address,address,uint256,uint256,uint256)';
const ZERO_STRATEGY = '0x56244Bb70CbD3EA9Dc8007399F61dFC065190031'; // any address works: no strategy logic

let evm: LocalEvm;
let c: TestContracts;
let startMs = 0;

beforeAll(async () => {
  const t0 = performance.now();
  evm = await startLocalEvm();
  startMs = performance.now() - t0;
  console.log(`local EVM started in ${startMs.toFixed(0)} ms at ${evm.rpcUrl}`);
  const t1 = performance.now();
  c = await deployTestContracts(evm);
  console.log(`test contracts deployed in ${(performance.now() - t1).toFixed(0)} ms`);
});

afterAll(async () => {
  await evm?.stop();
});

function wallet(i: number): ethers.Wallet {
  const w = evm.wallets[i];
  if (!w) throw new Error(`no wallet ${i}`);
  return w;
}

describe('local EVM', () => {
  it('serves chain 31337 over HTTP with funded Hardhat accounts', async () => {
    expect(evm.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(evm.chainId).toBe(31337);
    // a fresh provider, the way the service would reach it through RPC_URL
    const external = new ethers.JsonRpcProvider(evm.rpcUrl);
    expect((await external.getNetwork()).chainId).toBe(31337n);
    external.destroy();
    expect(evm.wallets.length).toBeGreaterThanOrEqual(10);
    expect(wallet(0).address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(await evm.provider.getBalance(wallet(9).address)).toBe(ethers.parseEther('10000'));
  });

  it('deploys contracts and moves an ERC-721', async () => {
    const [alice, bob] = [wallet(2), wallet(3)];
    expect(await c.erc721.supportsInterface('0x80ac58cd')).toBe(true);
    expect(await c.erc721.supportsInterface('0x01ffc9a7')).toBe(true);
    expect(await c.erc721.supportsInterface('0xd9b67a26')).toBe(false);
    expect(await c.erc1155.supportsInterface('0xd9b67a26')).toBe(true);
    expect(await c.erc721.owner()).toBe(wallet(0).address);
    expect(await c.erc721.name()).toBe('Test ERC721');

    await (await c.erc721.connect(alice).mint(alice.address, 1n)).wait();
    expect(await c.erc721.ownerOf(1n)).toBe(alice.address);
    expect(await c.erc721.totalSupply()).toBe(1n);

    const receipt = await (await c.erc721.connect(alice).transferFrom(alice.address, bob.address, 1n)).wait();
    expect(await c.erc721.ownerOf(1n)).toBe(bob.address);
    expect(await c.erc721.balanceOf(alice.address)).toBe(0n);
    const transfer = receipt!.logs[0]!;
    expect(transfer.topics[0]).toBe(ethers.id('Transfer(address,address,uint256)'));
    expect(ethers.getAddress(ethers.dataSlice(transfer.topics[2]!, 12))).toBe(bob.address);

    await expect(c.erc721.connect(alice).transferFrom(bob.address, alice.address, 1n)).rejects.toThrow(
      /caller is not token owner or approved/,
    );
  });

  it('wraps ETH into WETH and approves the exchange', async () => {
    const buyer = wallet(4);
    const receipt = await (await c.weth.connect(buyer).deposit({ value: ethers.parseEther('2') })).wait();
    expect(receipt!.logs[0]!.topics[0]).toBe(ethers.id('Deposit(address,uint256)'));
    expect(await c.weth.balanceOf(buyer.address)).toBe(ethers.parseEther('2'));
    expect(await c.weth.totalSupply()).toBe(ethers.parseEther('2'));
    await (await c.weth.connect(buyer).approve(c.addresses.exchange, ethers.MaxUint256)).wait();
    expect(await c.weth.allowance(buyer.address, c.addresses.exchange)).toBe(ethers.MaxUint256);
  });

  it('fills a maker ask and emits TakerBid with the v1 topic', async () => {
    const [seller, buyer] = [wallet(5), wallet(4)]; // buyer has WETH + approval from the previous test
    await (await c.erc721.connect(seller).mint(seller.address, 42n)).wait();
    await (await c.erc721.connect(seller).setApprovalForAll(c.addresses.transferManager721, true)).wait();

    const fill: ExchangeFill = {
      orderHash: ethers.id('order-42'),
      orderNonce: 7n,
      maker: seller.address,
      strategy: ZERO_STRATEGY,
      currency: c.addresses.weth,
      collection: c.addresses.erc721,
      tokenId: 42n,
      amount: 1n,
      price: ethers.parseEther('1'),
      isERC1155: false,
    };
    const receipt = (await (await c.exchange.connect(buyer).fillAsk(fill)).wait())!;

    expect(await c.erc721.ownerOf(42n)).toBe(buyer.address);
    expect(await c.weth.balanceOf(seller.address)).toBe(ethers.parseEther('1'));
    expect(await c.exchange.isUserOrderNonceExecutedOrCancelled(seller.address, 7n)).toBe(true);

    const log = receipt.logs.find((l) => l.address === c.addresses.exchange)!;
    expect(log.topics[0]).toBe(ethers.keccak256(ethers.toUtf8Bytes(TAKER_BID_SIG)));
    expect(log.topics[0]).toBe(c.exchange.interface.getEvent('TakerBid')!.topicHash);
    const parsed = c.exchange.interface.parseLog(log)!;
    expect(parsed.name).toBe('TakerBid');
    expect(parsed.args.taker).toBe(buyer.address);
    expect(parsed.args.maker).toBe(seller.address);
    expect(parsed.args.strategy).toBe(ZERO_STRATEGY);
    expect(parsed.args.collection).toBe(c.addresses.erc721);
    expect(parsed.args.tokenId).toBe(42n);
    expect(parsed.args.price).toBe(ethers.parseEther('1'));

    await expect(c.exchange.connect(buyer).fillAsk(fill)).rejects.toThrow(/Order: Matching order expired/);
  });

  it('fills an ERC-1155 maker bid (TakerAsk) and cancels nonces', async () => {
    const [seller, bidder] = [wallet(6), wallet(4)];
    await (await c.erc1155.connect(seller).mint(seller.address, 5n, 10n)).wait();
    await (await c.erc1155.connect(seller).setApprovalForAll(c.addresses.transferManager1155, true)).wait();
    const receipt = (await (
      await c.exchange.connect(seller).fillBid({
        orderHash: ethers.id('bid-1'),
        orderNonce: 0n,
        maker: bidder.address,
        strategy: ZERO_STRATEGY,
        currency: c.addresses.weth,
        collection: c.addresses.erc1155,
        tokenId: 5n,
        amount: 3n,
        price: ethers.parseEther('0.5'),
        isERC1155: true,
      })
    ).wait())!;
    expect(await c.erc1155.balanceOf(bidder.address, 5n)).toBe(3n);
    expect(await c.erc1155.balanceOf(seller.address, 5n)).toBe(7n);
    expect(await c.weth.balanceOf(seller.address)).toBe(ethers.parseEther('0.5'));
    const log = receipt.logs.find((l) => l.address === c.addresses.exchange)!;
    expect(log.topics[0]).toBe(ethers.id(TAKER_ASK_SIG));

    const cancelMany = (await (await c.exchange.connect(bidder).cancelMultipleMakerOrders([10n, 11n])).wait())!;
    expect(cancelMany.logs[0]!.topics[0]).toBe(ethers.id('CancelMultipleOrders(address,uint256[])'));
    expect(await c.exchange.isUserOrderNonceExecutedOrCancelled(bidder.address, 11n)).toBe(true);
    const cancelAll = (await (await c.exchange.connect(bidder).cancelAllOrdersForSender(100n)).wait())!;
    expect(cancelAll.logs[0]!.topics[0]).toBe(ethers.id('CancelAllOrders(address,uint256)'));
    expect(await c.exchange.userMinOrderNonce(bidder.address)).toBe(100n);
    await expect(c.exchange.connect(bidder).cancelAllOrdersForSender(50n)).rejects.toThrow(
      /Cancel: Order nonce lower than current/,
    );
    await expect(c.exchange.connect(bidder).cancelAllOrdersForSender(500100n)).rejects.toThrow(
      /Cancel: Cannot cancel more orders/,
    );
  });

  it('reverts to a snapshot (reorg) and mines manually', async () => {
    const p = evm.provider;
    const alice = wallet(7);
    const blockBefore = await p.getBlockNumber();
    const snapshot: string = await p.send('evm_snapshot', []);

    await (await c.erc721.connect(alice).mint(alice.address, 900n)).wait();
    expect(await c.erc721.ownerOf(900n)).toBe(alice.address);
    expect(await p.getBlockNumber()).toBe(blockBefore + 1);

    expect(await p.send('evm_revert', [snapshot])).toBe(true);
    expect(await p.getBlockNumber()).toBe(blockBefore);
    await expect(c.erc721.ownerOf(900n)).rejects.toThrow(/invalid token ID/);

    // manual mining: the tx stays pending until evm_mine
    await p.send('evm_setAutomine', [false]);
    try {
      const tx = await c.erc721.connect(alice).mint(alice.address, 901n);
      expect(await p.getTransactionReceipt(tx.hash)).toBeNull();
      expect(await p.getBlockNumber()).toBe(blockBefore);
      const ts = (await p.getBlock('latest'))!.timestamp + 3600;
      await p.send('evm_setNextBlockTimestamp', [ts]);
      await p.send('evm_mine', []);
      const receipt = (await tx.wait())!;
      expect(receipt.blockNumber).toBe(blockBefore + 1);
      expect((await p.getBlock(receipt.blockNumber))!.timestamp).toBe(ts);
      await p.send('evm_increaseTime', [60]);
      await p.send('evm_mine', []);
      expect((await p.getBlock('latest'))!.timestamp).toBeGreaterThanOrEqual(ts + 60);
    } finally {
      await p.send('evm_setAutomine', [true]);
    }
  });

  it('validates ERC-1271 signatures by the wallet owner only', async () => {
    const hash = ethers.keccak256(ethers.toUtf8Bytes('maker order digest'));
    expect(await c.wallet1271.owner()).toBe(wallet(1).address);
    const byOwner = wallet(1).signingKey.sign(hash).serialized;
    const byOther = wallet(2).signingKey.sign(hash).serialized;
    expect(await c.wallet1271.isValidSignature(hash, byOwner)).toBe('0x1626ba7e');
    expect(await c.wallet1271.isValidSignature(hash, byOther)).toBe('0xffffffff');
    expect(await c.wallet1271.isValidSignature(hash, '0x1234')).toBe('0xffffffff');

    // the owner drives the wallet: approve WETH from it through execute()
    const data = c.weth.interface.encodeFunctionData('approve', [c.addresses.exchange, 123n]);
    await (await c.wallet1271.connect(wallet(1)).execute(c.addresses.weth, data)).wait();
    expect(await c.weth.allowance(c.addresses.wallet1271, c.addresses.exchange)).toBe(123n);
    await expect(c.wallet1271.connect(wallet(2)).execute(c.addresses.weth, data)).rejects.toThrow(
      /caller is not the owner/,
    );
  });

  it('starts independent chains side by side', async () => {
    const t0 = performance.now();
    const [a, b] = await Promise.all([startLocalEvm(), startLocalEvm({ chainId: 1337 })]);
    console.log(`two more EVMs started concurrently in ${(performance.now() - t0).toFixed(0)} ms`);
    try {
      expect(a.rpcUrl).not.toBe(b.rpcUrl);
      expect((await b.provider.getNetwork()).chainId).toBe(1337n);
      expect(await b.provider.send('eth_chainId', [])).toBe('0x539');
      await (await a.wallets[0]!.sendTransaction({ to: a.wallets[1]!.address, value: 1n })).wait();
      expect(await a.provider.getBlockNumber()).toBe(1);
      expect(await b.provider.getBlockNumber()).toBe(0);
      expect(await evm.provider.getCode(c.addresses.exchange)).not.toBe('0x');
      expect(await a.provider.getCode(c.addresses.exchange)).toBe('0x');
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
