// Params must be typed and encoded exactly as @looksrare/sdk@0.12.1 (ethers 5) does, or the
// signature a client made over them does not verify (facts, "Signing and hashing").
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AbiCoder, getAddress, hexlify, randomBytes } from 'ethers';
import { encodeParams, inferParam, paramsForResponse, paramsToJson, parseParams, type ParamValue } from '../../src/domain/order-params.js';
import { titled } from '../helpers/skip-reasons.js';

const ADDR = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const UINT256_MAX = (1n << 256n) - 1n;
// 0x7099...79C8 with one letter's case flipped: not a valid EIP-55 checksum
const BAD_CHECKSUM = '0x70997970c51812dc3a010C7d01b50e0d17dc79c8';
// A valid ICAP (direct) spelling of ADDR, as ethers getIcapAddress prints it
const ICAP = 'XE92D5I4PJVDNO5SH9B600V1FSDRCJFLL8O';

type Expected = ParamValue | null;
const addr = (value: string): Expected => ({ type: 'address', value });
const uint = (value: bigint): Expected => ({ type: 'uint256', value });

// [label, JSON element, what the SDK does with it]
const TABLE: [string, unknown, Expected][] = [
  ['JS true -> bool', true, { type: 'bool', value: true }],
  ['JS false -> bool', false, { type: 'bool', value: false }],
  ['"true" refused', 'true', null],
  ['"false" refused', 'false', null],
  ['"1" -> uint256', '1', uint(1n)],
  ['1 -> uint256', 1, uint(1n)],
  ['"007" -> uint256 7', '007', uint(7n)],
  ['"0x1f" -> uint256 31 (hex)', '0x1f', uint(31n)],
  ['"-1" refused by the encoder', '-1', null],
  ['-1 refused by the encoder', -1, null],
  ['2^256 refused by the encoder', (UINT256_MAX + 1n).toString(), null],
  ['2^256-1 -> uint256', UINT256_MAX.toString(), uint(UINT256_MAX)],
  ['1.5 refused', 1.5, null],
  ['"1.5" refused', '1.5', null],
  ['"1e18" refused', '1e18', null],
  ['" 12" refused', ' 12', null],
  ['"" refused', '', null],
  ['"0x" refused', '0x', null],
  ['null refused', null, null],
  ['{} refused', {}, null],
  ['Number.MAX_SAFE_INTEGER refused', Number.MAX_SAFE_INTEGER, null],
  ['Number.MAX_SAFE_INTEGER - 1 -> uint256', Number.MAX_SAFE_INTEGER - 1, uint(BigInt(Number.MAX_SAFE_INTEGER - 1))],
  ['"0X1F" refused', '0X1F', null],
  ['checksummed address', ADDR, addr(ADDR)],
  ['all-lowercase address', ADDR.toLowerCase(), addr(ADDR)],
  ['all-uppercase address', `0x${ADDR.slice(2).toUpperCase()}`, addr(ADDR)],
  ['40 hex without 0x -> address', ADDR.slice(2), addr(ADDR)],
  ['wrong mixed-case checksum -> uint256 of the same value', BAD_CHECKSUM, uint(BigInt(ADDR))],
  ['40-digit decimal string -> address (read as hex)', '1234567890123456789012345678901234567890', addr('0x1234567890123456789012345678901234567890')],
  ['39-digit decimal string -> uint256', '123456789012345678901234567890123456789', uint(123456789012345678901234567890123456789n)],
  ['ICAP -> address', ICAP, addr(ADDR)],
  ['"-0" -> uint256 0', '-0', uint(0n)],
  ['byte array [1, 2] -> uint256 0x0102', [1, 2], uint(0x0102n)],
  ['[] refused', [], null],
  ['ethers 5 BigNumber JSON {type, hex} -> uint256', { type: 'BigNumber', hex: '0x02' }, uint(2n)],
  ['legacy {_hex} -> uint256', { _hex: '0x1' }, uint(1n)],
];

describe('inferParam mirrors the v1 SDK type inference', () => {
  it.each(TABLE)('%s', (_label, input, expected) => {
    expect(inferParam(input)).toEqual(expected);
  });

  it('encodes a wrong-checksum address to the same bytes as the address', () => {
    const asUint = inferParam(BAD_CHECKSUM)!;
    expect(encodeParams([asUint])).toBe(encodeParams([{ type: 'address', value: ADDR }]));
  });
});

describe('parseParams', () => {
  it('types a mixed list in order and encodes it as one ABI tuple', () => {
    const parsed = parseParams([ADDR, true, '5']);
    expect(parsed).toEqual({ ok: true, values: [addr(ADDR), { type: 'bool', value: true }, uint(5n)] });
    if (!parsed.ok) return;
    expect(encodeParams(parsed.values)).toBe(AbiCoder.defaultAbiCoder().encode(['address', 'bool', 'uint256'], [ADDR, true, 5n]));
  });

  it('reports every refused element, not only the first', () => {
    const parsed = parseParams(['1', 'true', ADDR, 1.5]);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.refusals.map((r) => r.index)).toEqual([1, 3]);
    expect(parsed.index).toBe(1);
  });

  it('refuses a non-array', () => {
    expect(parseParams('0x').ok).toBe(false);
  });
});

describe('stored and response forms', () => {
  it('encodes [] as 0x, shown as "" in responses (spec 2.2)', () => {
    expect(encodeParams([])).toBe('0x');
    expect(paramsForResponse('0x')).toBe('');
    expect(paramsForResponse('0x01')).toBe('0x01');
  });

  it('stores uint256 as decimal strings, addresses checksummed', () => {
    expect(paramsToJson([addr(ADDR)!, { type: 'bool', value: false }, uint(UINT256_MAX)!])).toEqual([ADDR, false, UINT256_MAX.toString()]);
  });
});

// Differential check against the real SDK in test/sdk-client (a separate npm package, installed
// with `npm ci --prefix test/sdk-client`); skipped when it is not installed. Local, no network.
const sdkDir = fileURLToPath(new URL('../sdk-client/', import.meta.url));
const sdkInstalled = existsSync(`${sdkDir}node_modules/@looksrare/sdk`);

describe.skipIf(!sdkInstalled)(titled('against @looksrare/sdk@0.12.1 encodeOrderParams', 'sdk'), () => {
  const lists: unknown[][] = [
    ...TABLE.map(([, input]) => [input]),
    ...['-00', '-0x0', '-0X0', '0x0X1', '00x1', '+1', '0x1F', 'XE00D5I4PJVDNO5SH9B600V1FSDRCJFLL8O', `XE92${ICAP.slice(4).toLowerCase()}`, ICAP.toLowerCase()].map((s) => [s]),
    [[256]], [{ length: 1, 0: 5 }], [{ _hex: '0x' }], [{ _hex: '-0x1' }], [{ toHexString: 'x' }], [{ type: 'BigNumber', hex: '2' }], [-0],
    [ADDR, true, '5'], [BAD_CHECKSUM, '1234567890123456789012345678901234567890'], [],
  ];
  const script = `
    const { encodeOrderParams } = require(${JSON.stringify(`${sdkDir}node_modules/@looksrare/sdk`)});
    const lists = JSON.parse(require('fs').readFileSync(0, 'utf8'));
    process.stdout.write(JSON.stringify(lists.map((l) => { try { return encodeOrderParams(l).encodedParams; } catch { return null; } })));
  `;
  const sdk: (string | null)[] = JSON.parse(execFileSync(process.execPath, ['-e', script], { input: JSON.stringify(lists, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) }).toString());

  it.each(lists.map((l, i) => [JSON.stringify(l), l, sdk[i]] as const))('%s', (_label, list, expected) => {
    const parsed = parseParams(list);
    expect(parsed.ok ? encodeParams(parsed.values) : null).toBe(expected);
  });
});

describe('encodeParams writes what ethers AbiCoder writes', () => {
  it('for random mixes of addresses, booleans and uint256 at the edges', () => {
    const abi = AbiCoder.defaultAbiCoder();
    const pick = (): ParamValue => {
      const r = Math.random();
      if (r < 0.33) return { type: 'address', value: getAddress(hexlify(randomBytes(20))) };
      if (r < 0.5) return { type: 'bool', value: Math.random() < 0.5 };
      const edges = [0n, 1n, (1n << 160n) - 1n, 1n << 160n, (1n << 256n) - 1n, BigInt(hexlify(randomBytes(32)))];
      return { type: 'uint256', value: edges[Math.floor(Math.random() * edges.length)]! };
    };
    for (let i = 0; i < 300; i++) {
      const values = Array.from({ length: 1 + Math.floor(Math.random() * 4) }, pick);
      expect(encodeParams(values)).toBe(abi.encode(values.map((v) => v.type), values.map((v) => v.value)));
    }
  });

  it('and throws where it throws', () => {
    const abi = AbiCoder.defaultAbiCoder();
    for (const v of [{ type: 'uint256', value: 1n << 256n }, { type: 'uint256', value: -1n }, { type: 'address', value: '0xnot' }] as ParamValue[]) {
      expect(() => abi.encode([v.type], [v.value])).toThrow();
      expect(() => encodeParams([v])).toThrow();
    }
  });
});
