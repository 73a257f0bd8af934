#!/usr/bin/env node
'use strict';
/*
 * Signs LooksRare v1 maker orders with the ORIGINAL v1 client code path:
 *   @looksrare/sdk@0.12.1 generateMakerOrderTypedData(signerAddress, chainId, order, verifyingContract?)
 *   + ethers 5 Wallet._signTypedData(domain, type, value)
 *
 * stdin:  { chainId, verifyingContract?, orders: [ { privateKey, order: {...MakerOrder}, signGivenSigner? } ] }
 * stdout: [ { makerOrder, structHash, digest, encodedParams, domain } ]  (one per order, same order)
 *
 * - verifyingContract omitted/empty: the SDK's own address book is used (chain 1 -> mainnet
 *   exchange; chain 5 AND 31337 -> the Goerli exchange; any other chain -> error).
 * - tokenId null (collection offer): the signed/hashed tokenId is 0, makerOrder.tokenId stays null.
 * - params: the array is handed to the SDK unchanged; the SDK infers the Solidity types
 *   (see README.md). makerOrder.params is the given array, unchanged.
 * - signer: like the SDK's signMakerOrder, the SIGNED signer is the wallet address of privateKey.
 *   makerOrder.signer is order.signer as given (or the wallet address if absent). If they differ,
 *   a warning goes to stderr and structHash/digest are those of the signed value (wallet signer).
 *   Set signGivenSigner: true on an entry to sign order.signer instead (signature then does not
 *   recover to order.signer: useful for "wrong key" negative tests).
 * Errors: message on stderr, exit code 1, nothing on stdout.
 */
const { ethers } = require('ethers');
const { generateMakerOrderTypedData, isSupportedChain } = require('@looksrare/sdk');

const { _TypedDataEncoder } = ethers.utils;

const FIELDS = [
  'isOrderAsk', 'signer', 'collection', 'price', 'tokenId', 'amount', 'strategy',
  'currency', 'nonce', 'startTime', 'endTime', 'minPercentageToAsk', 'params',
];

function toChainId(v) {
  const n = typeof v === 'string' && /^[0-9]+$/.test(v) ? Number(v) : v;
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`chainId must be a positive integer, got ${JSON.stringify(v)}`);
  return n;
}

async function signOne(chainId, verifyingContract, entry, index) {
  if (!entry || typeof entry !== 'object') throw new Error(`orders[${index}] must be an object`);
  const { privateKey, order, signGivenSigner } = entry;
  if (typeof privateKey !== 'string') throw new Error(`orders[${index}].privateKey must be a string`);
  if (!order || typeof order !== 'object') throw new Error(`orders[${index}].order must be an object`);
  for (const f of FIELDS) {
    if (f === 'signer' || f === 'params') continue;
    if (order[f] === undefined) throw new Error(`orders[${index}].order.${f} is missing`);
  }
  const wallet = new ethers.Wallet(privateKey);
  const bodySigner = order.signer === undefined || order.signer === null ? wallet.address : order.signer;
  const signerAddress = signGivenSigner ? bodySigner : wallet.address;
  if (!signGivenSigner && String(bodySigner).toLowerCase() !== wallet.address.toLowerCase()) {
    process.stderr.write(
      `warning: orders[${index}].order.signer ${bodySigner} is not the wallet address ${wallet.address}; ` +
        'the SDK signs the wallet address (makerOrder.signer kept as given)\n',
    );
  }

  // The MakerOrder handed to the SDK: exactly the 13 fields, tokenId null -> 0 (collection offer).
  const sdkOrder = {};
  for (const f of FIELDS) sdkOrder[f] = order[f];
  sdkOrder.signer = signerAddress;
  if (sdkOrder.tokenId === null) sdkOrder.tokenId = 0;
  // params undefined/null: the SDK itself maps them to [] -> "0x"; pass as given.

  const { domain, type, value } = generateMakerOrderTypedData(signerAddress, chainId, sdkOrder, verifyingContract);
  const signature = await wallet._signTypedData(domain, type, value);

  const structHash = _TypedDataEncoder.hashStruct('MakerOrder', type, value);
  const digest = _TypedDataEncoder.hash(domain, type, value);
  const encodedParams = ethers.utils.hexlify(value.params);

  // Self-consistency: ethers 5 must recover the key's address from what we produced.
  const recovered = ethers.utils.verifyTypedData(domain, type, value, signature);
  if (recovered !== wallet.address) throw new Error(`orders[${index}]: recovered ${recovered}, expected ${wallet.address}`);

  const makerOrder = {};
  for (const f of FIELDS) makerOrder[f] = order[f];
  makerOrder.signer = bodySigner;
  makerOrder.params = order.params === undefined ? [] : order.params;
  makerOrder.signature = signature;

  return { makerOrder, structHash, digest, encodedParams, domain: { ...domain } };
}

async function signOrders(input) {
  if (!input || typeof input !== 'object') throw new Error('input must be a JSON object');
  const chainId = toChainId(input.chainId);
  const verifyingContract = input.verifyingContract || undefined;
  if (!verifyingContract && !isSupportedChain(chainId)) {
    // The SDK would fail with "Cannot read properties of undefined (reading 'EXCHANGE')".
    throw new Error(`chainId ${chainId} is not in the SDK's address book (1, 5, 31337): pass verifyingContract`);
  }
  if (!Array.isArray(input.orders)) throw new Error('input.orders must be an array');
  const out = [];
  for (let i = 0; i < input.orders.length; i++) {
    try {
      out.push(await signOne(chainId, verifyingContract, input.orders[i], i));
    } catch (err) {
      const msg = err && (err.reason || err.message) ? err.reason || err.message : String(err);
      throw new Error(msg.startsWith(`orders[${i}]`) ? msg : `orders[${i}]: ${msg}`);
    }
  }
  return out;
}

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on('data', (c) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

async function main() {
  const text = await readStdin();
  const input = JSON.parse(text);
  const result = await signOrders(input);
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}

module.exports = { signOrders, FIELDS };

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`sign-orders: ${err && (err.reason || err.message) ? err.reason || err.message : err}\n`);
    process.exit(1);
  });
}
