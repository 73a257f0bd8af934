#!/usr/bin/env node
'use strict';
// Regenerates test/fixtures/v1-vectors.json through the CLI (node sign-orders.js < input).
// Usage: node test/sdk-client/make-vectors.js [--check]   (--check: compare, write nothing)
const path = require('path');
const fs = require('fs');
const { execFileSync } = require('child_process');
const { CHAIN_ID, EXCHANGE, VECTORS } = require('./vectors-input');

const OUT = path.join(__dirname, '..', 'fixtures', 'v1-vectors.json');

function build() {
  const input = {
    chainId: CHAIN_ID,
    verifyingContract: EXCHANGE,
    orders: VECTORS.map((v) => ({ privateKey: v.privateKey, order: v.order })),
  };
  const stdout = execFileSync(process.execPath, [path.join(__dirname, 'sign-orders.js')], {
    input: JSON.stringify(input),
    encoding: 'utf8',
  });
  const signed = JSON.parse(stdout);
  return VECTORS.map((v, i) => ({
    name: v.name,
    privateKey: v.privateKey,
    chainId: CHAIN_ID,
    verifyingContract: EXCHANGE,
    order: signed[i].makerOrder,
    structHash: signed[i].structHash,
    digest: signed[i].digest,
    encodedParams: signed[i].encodedParams,
  }));
}

if (require.main === module) {
  const text = JSON.stringify(build(), null, 2) + '\n';
  if (process.argv.includes('--check')) {
    const same = fs.existsSync(OUT) && fs.readFileSync(OUT, 'utf8') === text;
    console.log(same ? `${OUT}: up to date` : `${OUT}: DIFFERS from a fresh SDK signing`);
    process.exit(same ? 0 : 1);
  }
  fs.writeFileSync(OUT, text);
  console.log(`wrote ${OUT} (${VECTORS.length} vectors)`);
}

module.exports = { build, OUT };
