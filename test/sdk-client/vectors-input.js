'use strict';
// Fixed inputs of test/fixtures/v1-vectors.json (chain 1, mainnet LooksRare v1 exchange).
// Signatures are deterministic (RFC 6979), so re-signing these gives byte-identical vectors.

const CHAIN_ID = 1;
const EXCHANGE = '0x59728544B08AB483533076417FbBB2fD0B17CE3a';
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';

const STRATEGY = {
  STANDARD_ORIGINAL: '0x56244Bb70CbD3EA9Dc8007399F61dFC065190031',
  COLLECTION_ORIGINAL: '0x86F909F70813CdB1Bc733f4D97Dc6b03B8e7E8F3',
  STANDARD_V1B: '0x579af6FD30BF83a5Ac0D636bc619f98DBdeb930c',
  COLLECTION_V1B: '0x09F93623019049c76209C26517AcC2aF9d49c69b',
  PRIVATE_SALE: '0x58D83536D3EfeDB9F7f2A1Ec3BDaad2b1A4DD98C',
  DUTCH_AUCTION: '0x3E80795Cae5Ee215EBbDf518689467Bf4243BAe0',
};

// Hardhat default accounts #0 and #1 (public test keys).
const KEY0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'; // 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266
const KEY1 = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'; // 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
const ADDR0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const ADDR1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

const ERC721 = '0xBC4CA0EdA7647A8aB7C2061c2E118A18a936f13D';
const ERC1155 = '0x495f947276749Ce646f68AC8c248420045cb7b5e';
const UINT256_MAX = '115792089237316195423570985008687907853269984665640564039457584007913129639935';

const base = {
  currency: WETH,
  startTime: 1700000000,
  endTime: 1900000000,
  minPercentageToAsk: 9800,
  params: [],
};

const VECTORS = [
  {
    name: 'standard-ask-erc721-v1b',
    privateKey: KEY0,
    order: { ...base, isOrderAsk: true, signer: ADDR0, collection: ERC721, price: '1000000000000000000', tokenId: '1234', amount: '1', strategy: STRATEGY.STANDARD_V1B, nonce: '0' },
  },
  {
    name: 'standard-ask-erc721-original-strategy',
    privateKey: KEY0,
    order: { ...base, isOrderAsk: true, signer: ADDR0, collection: ERC721, price: '2500000000000000000', tokenId: '0', amount: '1', strategy: STRATEGY.STANDARD_ORIGINAL, nonce: '7', minPercentageToAsk: 8500 },
  },
  {
    name: 'standard-bid-erc721',
    privateKey: KEY1,
    order: { ...base, isOrderAsk: false, signer: ADDR1, collection: ERC721, price: '900000000000000000', tokenId: '1234', amount: '1', strategy: STRATEGY.STANDARD_V1B, nonce: '3' },
  },
  {
    name: 'collection-offer-v1b',
    privateKey: KEY1,
    order: { ...base, isOrderAsk: false, signer: ADDR1, collection: ERC721, price: '800000000000000000', tokenId: null, amount: '1', strategy: STRATEGY.COLLECTION_V1B, nonce: '4' },
  },
  {
    name: 'collection-offer-original-strategy',
    privateKey: KEY1,
    order: { ...base, isOrderAsk: false, signer: ADDR1, collection: ERC721, price: '750000000000000000', tokenId: null, amount: '1', strategy: STRATEGY.COLLECTION_ORIGINAL, nonce: '5' },
  },
  {
    name: 'private-sale-ask',
    privateKey: KEY0,
    order: { ...base, isOrderAsk: true, signer: ADDR0, collection: ERC721, price: '500000000000000000', tokenId: '42', amount: '1', strategy: STRATEGY.PRIVATE_SALE, nonce: '8', params: [ADDR1] },
  },
  {
    name: 'dutch-auction-ask',
    privateKey: KEY0,
    order: { ...base, isOrderAsk: true, signer: ADDR0, collection: ERC721, price: '1000000000000000000', tokenId: '43', amount: '1', strategy: STRATEGY.DUTCH_AUCTION, nonce: '9', params: ['5000000000000000000'] },
  },
  {
    name: 'erc1155-ask-amount5-uint256-max',
    privateKey: KEY0,
    order: { ...base, isOrderAsk: true, signer: ADDR0, collection: ERC1155, price: UINT256_MAX, tokenId: UINT256_MAX, amount: '5', strategy: STRATEGY.STANDARD_V1B, nonce: UINT256_MAX },
  },
];

module.exports = { CHAIN_ID, EXCHANGE, WETH, STRATEGY, KEY0, KEY1, ADDR0, ADDR1, ERC721, ERC1155, UINT256_MAX, VECTORS };
