#!/usr/bin/env node
'use strict';
// Self-check of the v1 SDK signing helper. Run: node test/sdk-client/self-check.js
// Signs 6 order kinds through the CLI (child_process, as the main tests do) on chain 31337
// (custom exchange) and chain 1 (exchange from the SDK's own address book), then checks them
// with ethers 5 independently of the CLI's own hashing.
const path = require('path');
const fs = require('fs');
const assert = require('assert');
const { execFileSync } = require('child_process');
const { ethers } = require('ethers');
const sdk = require('@looksrare/sdk');
const { STRATEGY, WETH, ERC721, ERC1155, ADDR1, KEY0 } = require('./vectors-input');

const { keccak256, toUtf8Bytes, defaultAbiCoder, solidityPack, splitSignature, hexDataLength, verifyTypedData, _TypedDataEncoder } = ethers.utils;

const TYPE_STRING =
  'MakerOrder(bool isOrderAsk,address signer,address collection,uint256 price,uint256 tokenId,uint256 amount,address strategy,address currency,uint256 nonce,uint256 startTime,uint256 endTime,uint256 minPercentageToAsk,bytes params)';
const EXPECTED_TYPEHASH = '0x40261ade532fa1d2c7293df30aaadb9b3c616fae525a0b56d3d411c841a85028';
const EXPECTED_EMPTY_PARAMS_HASH = '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';
const MAINNET_EXCHANGE = '0x59728544B08AB483533076417FbBB2fD0B17CE3a';
const HARDHAT_EXCHANGE = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const SECP256K1_HALF_N = ethers.BigNumber.from('0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0');

let passed = 0;
let failed = 0;
function check(name, fn) {
  try {
    fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e.message}`);
  }
}

const signerAddr = new ethers.Wallet(KEY0).address;
const base = { signer: signerAddr, currency: WETH, startTime: 1700000000, endTime: 1900000000, minPercentageToAsk: 9800, params: [] };
const CASES = [
  { name: 'standard ask ERC-721', order: { ...base, isOrderAsk: true, collection: ERC721, price: '1000000000000000000', tokenId: '1', amount: '1', strategy: STRATEGY.STANDARD_V1B, nonce: '0' } },
  { name: 'standard bid', order: { ...base, isOrderAsk: false, collection: ERC721, price: '900000000000000000', tokenId: '1', amount: '1', strategy: STRATEGY.STANDARD_V1B, nonce: '1' } },
  { name: 'collection offer', order: { ...base, isOrderAsk: false, collection: ERC721, price: '800000000000000000', tokenId: null, amount: '1', strategy: STRATEGY.COLLECTION_V1B, nonce: '2' } },
  { name: 'private-sale ask [buyer]', order: { ...base, isOrderAsk: true, collection: ERC721, price: '500000000000000000', tokenId: '2', amount: '1', strategy: STRATEGY.PRIVATE_SALE, nonce: '3', params: [ADDR1] }, paramTypes: ['address'] },
  { name: 'dutch-auction ask [startPrice]', order: { ...base, isOrderAsk: true, collection: ERC721, price: '1000000000000000000', tokenId: '3', amount: '1', strategy: STRATEGY.DUTCH_AUCTION, nonce: '4', params: ['5000000000000000000'] }, paramTypes: ['uint256'] },
  { name: 'ERC-1155 ask amount 5', order: { ...base, isOrderAsk: true, collection: ERC1155, price: '300000000000000000', tokenId: '77', amount: '5', strategy: STRATEGY.STANDARD_V1B, nonce: '5' } },
];

function runCli(input) {
  return JSON.parse(
    execFileSync(process.execPath, [path.join(__dirname, 'sign-orders.js')], { input: JSON.stringify(input), encoding: 'utf8' }),
  );
}

// Independent struct hash per spec 2.5: keccak256(abi.encode(typehash, 12 values, keccak256(params))).
function specStructHash(body, encodedParams) {
  return keccak256(
    defaultAbiCoder.encode(
      ['bytes32', 'bool', 'address', 'address', 'uint256', 'uint256', 'uint256', 'address', 'address', 'uint256', 'uint256', 'uint256', 'uint256', 'bytes32'],
      [
        EXPECTED_TYPEHASH, body.isOrderAsk, body.signer, body.collection, body.price, body.tokenId === null ? 0 : body.tokenId,
        body.amount, body.strategy, body.currency, body.nonce, body.startTime, body.endTime, body.minPercentageToAsk, keccak256(encodedParams),
      ],
    ),
  );
}

console.log(`@looksrare/sdk ${JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules/@looksrare/sdk/package.json'), 'utf8')).version}, ethers ${ethers.version}`);
console.log(`MakerOrder type string: ${TYPE_STRING}`);
const { type } = sdk.getMakerOrderTypeAndDomain(1);
const sdkTypeString = _TypedDataEncoder.from(type).encodeType('MakerOrder');
console.log(`keccak256(type string) = ${keccak256(toUtf8Bytes(sdkTypeString))}`);
const emptyEncoded = sdk.encodeOrderParams([]).encodedParams;
console.log(`SDK encodeOrderParams([]) = ${emptyEncoded}, keccak256 = ${keccak256(emptyEncoded)}`);
check('SDK type string equals the facts file type string', () => assert.strictEqual(sdkTypeString, TYPE_STRING));
check('typehash', () => assert.strictEqual(keccak256(toUtf8Bytes(sdkTypeString)), EXPECTED_TYPEHASH));
check('keccak256(encoded []) ', () => {
  assert.strictEqual(emptyEncoded, '0x');
  assert.strictEqual(keccak256(emptyEncoded), EXPECTED_EMPTY_PARAMS_HASH);
});

const RUNS = [
  { label: 'chain 31337', input: { chainId: 31337, verifyingContract: HARDHAT_EXCHANGE }, exchange: HARDHAT_EXCHANGE },
  // verifyingContract omitted on purpose: the SDK's own address book must give the mainnet exchange.
  { label: 'chain 1', input: { chainId: 1 }, exchange: MAINNET_EXCHANGE },
];

for (const run of RUNS) {
  const out = runCli({ ...run.input, orders: CASES.map((c) => ({ privateKey: KEY0, order: c.order })) });
  check(`${run.label}: one result per order`, () => assert.strictEqual(out.length, CASES.length));
  CASES.forEach((c, i) => {
    const r = out[i];
    check(`${run.label}: ${c.name}`, () => {
      const { makerOrder: body, structHash, digest, encodedParams, domain } = r;
      const chainId = run.input.chainId;
      assert.deepStrictEqual(domain, { name: 'LooksRareExchange', version: '1', chainId, verifyingContract: run.exchange });
      // request body: every given field unchanged + signature
      const { signature, ...rest } = body;
      assert.deepStrictEqual(rest, c.order);
      // params encoding
      const expectedEncoded = c.paramTypes ? defaultAbiCoder.encode(c.paramTypes, c.order.params) : '0x';
      assert.strictEqual(encodedParams, expectedEncoded);
      // the value that was signed (tokenId null -> 0, params -> ABI bytes)
      const value = { ...body, tokenId: body.tokenId === null ? 0 : body.tokenId, params: encodedParams };
      delete value.signature;
      assert.strictEqual(verifyTypedData(domain, type, value, signature), signerAddr, 'verifyTypedData does not recover the signer');
      assert.strictEqual(_TypedDataEncoder.hashStruct('MakerOrder', type, value), structHash);
      assert.strictEqual(specStructHash(body, encodedParams), structHash, 'spec 2.5 recomputation differs');
      const separator = _TypedDataEncoder.hashDomain(domain);
      assert.strictEqual(keccak256(solidityPack(['bytes2', 'bytes32', 'bytes32'], ['0x1901', separator, structHash])), digest);
      // signature shape: 65 bytes r||s||v, v in {27,28}, low s
      assert.strictEqual(hexDataLength(signature), 65);
      const sig = splitSignature(signature);
      assert.ok(sig.v === 27 || sig.v === 28, `v=${sig.v}`);
      assert.ok(ethers.BigNumber.from(sig.s).lte(SECP256K1_HALF_N), 'high s');
      assert.strictEqual(ethers.utils.recoverAddress(digest, signature), signerAddr);
    });
    console.log(`       structHash ${r.structHash}  digest ${r.digest}  params ${r.encodedParams.length > 20 ? r.encodedParams.slice(0, 20) + '…' : r.encodedParams}`);
  });
}

check('chain 31337 and chain 1 give different digests, same struct hashes', () => {
  const a = runCli({ chainId: 31337, verifyingContract: HARDHAT_EXCHANGE, orders: [{ privateKey: KEY0, order: CASES[0].order }] })[0];
  const b = runCli({ chainId: 1, orders: [{ privateKey: KEY0, order: CASES[0].order }] })[0];
  assert.strictEqual(a.structHash, b.structHash);
  assert.notStrictEqual(a.digest, b.digest);
});

check('SDK refuses the string "true" as a param', () => {
  assert.throws(() => sdk.encodeOrderParams(['true']), /Params have unsupported solidity types/);
});

const fixture = path.join(__dirname, '..', 'fixtures', 'v1-vectors.json');
if (fs.existsSync(fixture)) {
  check('test/fixtures/v1-vectors.json equals a fresh SDK signing', () => {
    const { build } = require('./make-vectors');
    assert.strictEqual(fs.readFileSync(fixture, 'utf8'), JSON.stringify(build(), null, 2) + '\n');
  });
} else {
  console.log('note: test/fixtures/v1-vectors.json absent (node test/sdk-client/make-vectors.js writes it)');
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
