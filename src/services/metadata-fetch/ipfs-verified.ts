// IPFS content read through trustless gateways
// (https://specs.ipfs.tech/http-gateways/trustless-gateway/): the gateway sends blocks, a CAR of
// the DAG along the path, or one raw block, and every block is hashed here against its CID
// before anything reads it. The UnixFS walk from the requested CID then only ever sees verified
// blocks, so a lying gateway can fail a fetch but never change its answer. CAR roots are ignored
// (the spec leaves them unspecified): the walk starts at the CID that was asked for.
import { CarBlockIterator } from '@ipld/car/iterator';
import * as dagPb from '@ipld/dag-pb';
import { exporter, type UnixFSEntry } from 'ipfs-unixfs-exporter';
import { equals } from 'multiformats/bytes';
import { CID } from 'multiformats/cid';
import * as raw from 'multiformats/codecs/raw';
import type { MultihashDigest } from 'multiformats/hashes/interface';
import { identity } from 'multiformats/hashes/identity';
import { sha256, sha512 } from 'multiformats/hashes/sha2';
import { contentPathSegments, encodePath, gatewayBase } from './content-path.js';
import { failure, type FetchFailure, type FetchOutcome } from './fetch-outcome.js';
import { safeGet, type Getter, type SafeGetOptions } from './safe-get.js';

/** Hashes a block can be verified with; a block under any other is refused, not trusted. */
const HASHERS = new Map<number, { digest(bytes: Uint8Array): MultihashDigest | Promise<MultihashDigest> }>([
  [sha256.code, sha256],
  [sha512.code, sha512],
  [identity.code, identity],
]);

/**
 * A CAR holds the file plus the DAG around it (directory blocks along the path, the file's inner
 * nodes, a few bytes of framing a block): room for one more block at the 2 MiB limit gateways
 * and bitswap apply. The file itself is still held to maxBytes as it is read.
 */
const CAR_OVERHEAD_BYTES = 2 * 1024 * 1024;

export interface IpfsFetchOptions extends SafeGetOptions {
  /** how each gateway request is made; default safeGet (the fetcher puts its host limiter here) */
  get?: Getter;
}

/** The first gateway that gives verified content wins; any failure moves on to the next. */
export async function fetchIpfsVerified(cidText: string, path: string, gateways: string[], opts: IpfsFetchOptions): Promise<FetchOutcome> {
  let cid: CID;
  try {
    cid = CID.parse(cidText);
  } catch {
    return failure('UNSUPPORTED_URI', `not a CID: ${cidText.slice(0, 100)}`);
  }
  if (cid.code !== dagPb.code && cid.code !== raw.code) return failure('UNSUPPORTED_URI', `codec 0x${cid.code.toString(16)} is not read (dag-pb and raw only)`);
  if (!HASHERS.has(cid.multihash.code)) return failure('UNSUPPORTED_URI', `hash 0x${cid.multihash.code.toString(16)} cannot be verified here`);
  const segments = contentPathSegments(path);
  if (!segments) return failure('UNSUPPORTED_URI', `unusable path ${path.slice(0, 200)}`);
  if (cid.code === raw.code && segments.length > 0) return failure('UNSUPPORTED_URI', 'a raw block has no paths');
  const finalUrl = `ipfs://${cid}${encodePath(segments)}`;
  // an identity CID carries its bytes: nothing to fetch
  if (cid.code === raw.code && cid.multihash.code === identity.code) return { ok: true, bytes: cid.multihash.digest, contentType: null, finalUrl };
  if (gateways.length === 0) return failure('UNSUPPORTED_URI', 'no IPFS gateway configured');

  const failures: Array<[string, FetchFailure]> = [];
  for (const gateway of gateways) {
    const outcome = cid.code === raw.code ? await fromRawBlock(gateway, cid, opts) : await fromCar(gateway, cid, segments, opts);
    if (outcome.ok) return { ...outcome, finalUrl };
    failures.push([gateway, outcome]);
  }
  return allFailed(failures);
}

/** `?format=raw`: the body is the block, so it must hash to the CID. */
async function fromRawBlock(gateway: string, cid: CID, opts: IpfsFetchOptions): Promise<FetchOutcome> {
  const got = await (opts.get ?? safeGet)(`${gatewayBase(gateway)}/ipfs/${cid}?format=raw`, { ...opts, accept: 'application/vnd.ipld.raw' });
  if (!got.ok) return got;
  if (!(await hashesTo(cid, got.bytes))) return failure('CID_MISMATCH', `the block served for ${cid} does not hash to it`);
  return { ok: true, bytes: got.bytes, contentType: null, finalUrl: '' };
}

async function fromCar(gateway: string, cid: CID, segments: string[], opts: IpfsFetchOptions): Promise<FetchOutcome> {
  const url = `${gatewayBase(gateway)}/ipfs/${cid}${encodePath(segments)}?format=car&dag-scope=entity`;
  const got = await (opts.get ?? safeGet)(url, { ...opts, maxBytes: opts.maxBytes + CAR_OVERHEAD_BYTES, accept: 'application/vnd.ipld.car; version=1' });
  if (!got.ok) return got;
  const blocks = await verifiedBlocks(got.bytes);
  if (!(blocks instanceof Map)) return blocks;
  const store = verifiedStore(blocks);
  try {
    const entry = await exporter(`${cid}${segments.map((s) => `/${s}`).join('')}`, store);
    return await readFile(entry, opts.maxBytes);
  } catch (err) {
    if (store.missing) return failure('CID_MISMATCH', `block ${store.missing} is missing from the gateway's CAR`);
    // the directories walked were verified, so the name is truly absent: what a path gateway answers
    if ((err as Error).name === 'NotFoundError') return failure('HTTP_STATUS', `no ${encodePath(segments)} under ${cid}`, { status: 404 });
    return failure('UNSUPPORTED_URI', `not a readable UnixFS file: ${(err as Error).message}`);
  }
}

/** Every block of the CAR, each checked against its CID; keyed by multihash (CIDv0 and v1 links share blocks). */
async function verifiedBlocks(car: Uint8Array): Promise<Map<string, Uint8Array> | FetchFailure> {
  const blocks = new Map<string, Uint8Array>();
  try {
    for await (const { cid, bytes } of await CarBlockIterator.fromBytes(car)) {
      if (!HASHERS.has(cid.multihash.code)) return failure('CID_MISMATCH', `block ${cid} uses hash 0x${cid.multihash.code.toString(16)}, which cannot be verified here`);
      if (!(await hashesTo(cid, bytes))) return failure('CID_MISMATCH', `block ${cid} does not hash to its CID`);
      blocks.set(blockKey(cid), bytes);
    }
  } catch (err) {
    return failure('CID_MISMATCH', `not a readable CAR: ${(err as Error).message}`);
  }
  return blocks;
}

async function hashesTo(cid: CID, bytes: Uint8Array): Promise<boolean> {
  const hasher = HASHERS.get(cid.multihash.code);
  return hasher !== undefined && equals((await hasher.digest(bytes)).bytes, cid.multihash.bytes);
}

const blockKey = (cid: CID) => Buffer.from(cid.multihash.bytes).toString('base64');

/** The exporter's blockstore: verified blocks only, and it remembers the first one it lacked. */
function verifiedStore(blocks: Map<string, Uint8Array>) {
  const store = {
    missing: undefined as CID | undefined,
    *get(cid: CID): Generator<Uint8Array> {
      const bytes = cid.multihash.code === identity.code ? cid.multihash.digest : blocks.get(blockKey(cid));
      if (!bytes) {
        store.missing ??= cid;
        throw new Error(`block ${cid} not in the CAR`);
      }
      yield bytes;
    },
  };
  return store;
}

/** A DAG of shared blocks can unfold to far more than it weighs (zeros by the gigabyte): capped as read. */
async function readFile(entry: UnixFSEntry, maxBytes: number): Promise<FetchOutcome> {
  if (entry.type !== 'file' && entry.type !== 'raw' && entry.type !== 'identity') {
    return failure('UNSUPPORTED_URI', `the path names a ${entry.type}, not a file`);
  }
  if (entry.size > BigInt(maxBytes)) return failure('TOO_LARGE', `file of ${entry.size} bytes is over ${maxBytes}`);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of entry.content()) {
    total += chunk.length;
    if (total > maxBytes) return failure('TOO_LARGE', `file is over ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return { ok: true, bytes: Buffer.concat(chunks, total), contentType: null, finalUrl: '' };
}

/**
 * Every gateway failed: retryable if any failure was (another try may find that gateway well),
 * waiting for the shortest Retry-After among them; the message names each gateway's reason.
 */
function allFailed(failures: Array<[string, FetchFailure]>): FetchFailure {
  const message = failures.map(([g, f]) => `${g}: ${f.message}`).join('; ');
  const retryable = failures.map(([, f]) => f).filter((f) => f.retryable);
  const lead = retryable[0] ?? failures[0]![1];
  const waits = retryable.map((f) => f.retryAfterMs);
  const retryAfterMs = waits.length > 0 && waits.every((w) => w !== undefined) ? Math.min(...(waits as number[])) : undefined;
  return failure(lead.code, message, { status: lead.status, retryAfterMs });
}
