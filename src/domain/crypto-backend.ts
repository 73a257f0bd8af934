// keccak256 and secp256k1 public-key recovery, the two primitives behind every order hash and
// signature check. The native addons (npm `keccak` 3 and `secp256k1` 5, libsecp256k1) ship
// linux/darwin/win32 prebuilds that load without an install script; recovery costs about 0.07 ms
// there against about 3 ms in pure JS, which alone capped submissions near 300 orders/s per core.
// When a prebuild does not load (another platform, a musl libc), the same functions run in pure
// JS on @noble/hashes and @noble/curves, the audited code ethers itself runs on. That fallback is
// imported only then: a start with the native addons loads neither it nor ethers (about 0.1 s of
// module compilation at every start, measured). Both backends give identical answers
// (test/domain/crypto-backend.test.ts runs every check on both, and against ethers).
import { createRequire } from 'node:module';
import path from 'node:path';

export type CryptoBackendName = 'native' | 'js';

interface Backend {
  name: CryptoBackendName;
  keccak256(data: Uint8Array): Uint8Array;
  /** the 64-byte uncompressed public key (no 0x04 prefix); null when no point recovers */
  recoverPublicKey(digest: Uint8Array, r: Uint8Array, s: Uint8Array, recoveryId: 0 | 1): Uint8Array | null;
}

/** The pure-JS backend, as ethers' SigningKey.recoverPublicKey does it (fromCompact checks 0 < r, s < n). */
async function importJsBackend(): Promise<Backend> {
  const [{ keccak_256 }, { secp256k1 }] = await Promise.all([import('@noble/hashes/sha3'), import('@noble/curves/secp256k1')]);
  const compact = new Uint8Array(64);
  return {
    name: 'js',
    keccak256: (data) => keccak_256(data),
    recoverPublicKey(digest, r, s, recoveryId) {
      compact.set(r, 0);
      compact.set(s, 32);
      try {
        return secp256k1.Signature.fromCompact(compact).addRecoveryBit(recoveryId).recoverPublicKey(digest).toRawBytes(false).subarray(1);
      } catch {
        return null; // r or s zero or not below n, or no curve point for r
      }
    },
  };
}

/** keccak's compiled sponge (the class its JS API wraps in a readable-stream Transform per hash). */
type KeccakState = new () => { initialize(rate: number, capacity: number): void; absorb(data: Buffer): void; squeeze(bytes: number): Buffer };
type NativeSecp = { ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean, output?: Uint8Array): Uint8Array };

/**
 * The compiled code itself, which throws when it does not load (the packages' index.js would
 * silently fall back to JS): secp256k1's own `bindings` entry, and keccak's prebuild through
 * node-gyp-build as keccak/bindings.js does, minus its stream API (it loads readable-stream,
 * about 20 modules at every start and in every worker, and builds a stream per hash).
 */
function loadNative(): { backend: Backend | null; error: string | null } {
  try {
    const require = createRequire(import.meta.url);
    const keccakDir = path.dirname(require.resolve('keccak/package.json'));
    const State = (createRequire(path.join(keccakDir, 'package.json'))('node-gyp-build') as (dir: string) => unknown)(keccakDir);
    if (typeof State !== 'function') throw new Error('the keccak add-on did not load');
    const KeccakState = State as KeccakState;
    const secp = require('secp256k1/bindings') as NativeSecp;
    const sig = new Uint8Array(64);
    const backend: Backend = {
      name: 'native',
      // the addon takes Buffers only (a view, no copy)
      keccak256: (data) => {
        // rate 1088, capacity 512 and the sponge's default 0x01 padding: Keccak-256 (keccak/lib/api/index.js)
        const state = new KeccakState();
        state.initialize(1088, 512);
        state.absorb(Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength));
        return state.squeeze(32);
      },
      recoverPublicKey(digest, r, s, recoveryId) {
        sig.set(r, 0);
        sig.set(s, 32);
        try {
          return secp.ecdsaRecover(sig, recoveryId, digest, false).subarray(1);
        } catch {
          return null; // r or s zero or not below n, or no curve point for r
        }
      },
    };
    // A smoke test: a binary that loads but computes garbage must not sign off orders.
    const empty = bytesToHex(backend.keccak256(new Uint8Array(0)));
    if (empty !== '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470') throw new Error(`native keccak256('') gave ${empty}`);
    return { backend, error: null };
  } catch (err) {
    return { backend: null, error: (err as Error).message.split('\n')[0]! };
  }
}

// CRYPTO_BACKEND=js skips the addons (an operator ruling them out; the test of the fallback start).
const native = process.env.CRYPTO_BACKEND === 'js' ? { backend: null, error: 'CRYPTO_BACKEND=js' } : loadNative();
let jsBackend: Backend | null = native.backend ? null : await importJsBackend();
let active: Backend = native.backend ?? jsBackend!;

/** Loads the pure-JS backend when the native one runs (tests compare the two); a no-op otherwise. */
export async function loadJsCryptoBackend(): Promise<void> {
  jsBackend ??= await importJsBackend();
}

/** Which backend runs, and why the native one does not when it does not (boot logs it). */
export function cryptoBackendInfo(): { backend: CryptoBackendName; nativeAvailable: boolean; nativeError: string | null } {
  return { backend: active.name, nativeAvailable: native.backend !== null, nativeError: native.error };
}

/**
 * Switches the backend (tests run the same checks on both); 'native' throws when it did not load,
 * 'js' when loadJsCryptoBackend() has not run.
 */
export function useCryptoBackend(name: CryptoBackendName): void {
  if (name === 'native' && !native.backend) throw new Error(`the native crypto backend did not load: ${native.error}`);
  if (name === 'js' && !jsBackend) throw new Error('the JS crypto backend is not loaded: await loadJsCryptoBackend() first');
  active = name === 'native' ? native.backend! : jsBackend!;
}

export function keccak256Bytes(data: Uint8Array): Uint8Array {
  return active.keccak256(data);
}

export function keccak256Hex(data: Uint8Array): string {
  return bytesToHex(active.keccak256(data));
}

/**
 * ecrecover(digest, v, r, s) as an EIP-55 address, or null when nothing recovers (the EVM
 * precompile would return address(0)). v is 27 or 28; the caller has checked it (and low s).
 */
export function recoverAddressFromDigest(digest: string, r: string, s: string, v: number): string | null {
  if (v !== 27 && v !== 28) return null;
  const pub = active.recoverPublicKey(hexToBytes(digest), hexToBytes(r), hexToBytes(s), (v - 27) as 0 | 1);
  if (!pub) return null;
  return checksumAddress(bytesToHex(active.keccak256(pub).subarray(12)));
}

/** EIP-55 of a lowercase 0x address (what ethers' getAddress returns, with the active keccak). */
export function checksumAddress(lower: string): string {
  const hex = lower.slice(2);
  const hash = active.keccak256(Buffer.from(hex, 'ascii'));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = hex[i]!;
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

export function hexToBytes(hex: string): Uint8Array {
  return Buffer.from(hex.startsWith('0x') ? hex.slice(2) : hex, 'hex');
}

export function bytesToHex(bytes: Uint8Array): string {
  return '0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
