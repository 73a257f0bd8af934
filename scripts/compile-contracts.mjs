#!/usr/bin/env node
// Compiles contracts/*.sol offline with solc-js (the `solc` npm package ships its WASM compiler)
// and writes test/fixtures/contracts/artifacts.json as { ContractName: { abi, bytecode } }.
//   node scripts/compile-contracts.mjs          write the artifacts
//   node scripts/compile-contracts.mjs --check  exit 1 if the committed artifacts are stale
import { readFileSync, readdirSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const solc = require('solc');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const contractsDir = join(root, 'contracts');
const outFile = join(root, 'test', 'fixtures', 'contracts', 'artifacts.json');
const check = process.argv.includes('--check');

const files = readdirSync(contractsDir).filter((f) => f.endsWith('.sol')).sort();
const sources = Object.fromEntries(
  files.map((f) => [`contracts/${f}`, { content: readFileSync(join(contractsDir, f), 'utf8') }]),
);

const input = {
  language: 'Solidity',
  sources,
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};

const started = Date.now();
const output = JSON.parse(
  solc.compile(JSON.stringify(input), {
    import: (path) => ({ error: `imports are not supported offline: ${path}` }),
  }),
);

let failed = false;
for (const e of output.errors ?? []) {
  const text = e.formattedMessage ?? e.message;
  if (e.severity === 'error') {
    failed = true;
    console.error(text);
  } else {
    console.warn(text);
  }
}
if (failed) process.exit(1);

const artifacts = {};
for (const source of Object.keys(output.contracts ?? {}).sort()) {
  for (const name of Object.keys(output.contracts[source]).sort()) {
    const c = output.contracts[source][name];
    const bytecode = c.evm.bytecode.object;
    if (!bytecode) continue; // interfaces
    if (artifacts[name]) throw new Error(`duplicate contract name ${name}`);
    artifacts[name] = { abi: c.abi, bytecode: `0x${bytecode}` };
  }
}

const json = `${JSON.stringify(artifacts, null, 2)}\n`;
const names = Object.keys(artifacts).join(', ');
if (check) {
  const current = existsSync(outFile) ? readFileSync(outFile, 'utf8') : '';
  if (current !== json) {
    console.error(`${outFile} is stale: run node scripts/compile-contracts.mjs`);
    process.exit(1);
  }
  console.log(`artifacts up to date (solc ${solc.version()}): ${names}`);
} else {
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, json);
  console.log(`solc ${solc.version()} compiled ${names} in ${Date.now() - started} ms -> ${outFile}`);
}
