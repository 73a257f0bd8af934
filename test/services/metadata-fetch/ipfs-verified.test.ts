// fetchIpfsVerified against fake trustless gateways serving CARs of real UnixFS imports: content
// is only ever what the CID names, whatever a gateway sends; a bad gateway is passed over.
import { CID } from 'multiformats/cid';
import * as raw from 'multiformats/codecs/raw';
import { identity } from 'multiformats/hashes/identity';
import { sha256 } from 'multiformats/hashes/sha2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchIpfsVerified } from '../../../src/services/metadata-fetch/ipfs-verified.js';
import type { SafeGetOptions } from '../../../src/services/metadata-fetch/safe-get.js';
import { importContent, startGateway, type FakeGateway, type Imported } from './trustless-gateway.js';

const opts: SafeGetOptions = { timeoutMs: 2000, maxBytes: 1 << 20, allowPrivateTargets: true };
const enc = new TextEncoder();

/** 5 KiB of varied bytes: five 1 KiB leaves under one file node. */
const BIG = Uint8Array.from({ length: 5 * 1024 + 17 }, (_, i) => (i * 31 + (i >> 8)) & 0xff);
const SMALL = enc.encode(JSON.stringify({ name: 'Token #2' }));

let collection: Imported;
let leaf: Imported;
let zeros: Imported;
let good: FakeGateway;
let second: FakeGateway;

beforeAll(async () => {
  collection = await importContent(
    [
      { path: 'meta/1.json', content: BIG },
      { path: 'meta/2.json', content: SMALL },
    ],
    { wrapWithDirectory: true },
  );
  leaf = await importContent([{ content: SMALL }]);
  // 400 KiB of zeros in 1 KiB chunks: every leaf is the same block, so the CAR is small
  zeros = await importContent([{ path: 'zeros.bin', content: new Uint8Array(400 * 1024) }], { wrapWithDirectory: true });
  good = await startGateway('good');
  second = await startGateway('good');
  for (const g of [good, second]) [collection, leaf, zeros].forEach((c) => g.add(c));
});

afterAll(async () => {
  await good.close();
  await second.close();
});

async function withGateway<T>(mode: FakeGateway['mode'], fn: (g: FakeGateway) => Promise<T>): Promise<T> {
  const g = await startGateway(mode);
  [collection, leaf, zeros].forEach((c) => g.add(c));
  try {
    return await fn(g);
  } finally {
    await g.close();
  }
}

describe('fetchIpfsVerified', () => {
  it('reads a file of several blocks under a directory path, asking for a CAR of the entity', async () => {
    const got = await fetchIpfsVerified(collection.root.toString(), '/meta/1.json', [good.origin], opts);
    expect(got).toMatchObject({ ok: true, finalUrl: `ipfs://${collection.root}/meta/1.json` });
    expect(got.ok && Buffer.from(got.bytes).equals(Buffer.from(BIG))).toBe(true);
    const asked = good.seen.at(-1)!;
    expect(asked.path).toBe(`/ipfs/${collection.root}/meta/1.json?format=car&dag-scope=entity`);
    expect(asked.headers.accept).toMatch(/^application\/vnd\.ipld\.car/);
    expect(collection.blocks.length).toBeGreaterThan(6);
  });

  it('reads a raw-leaf CID as one raw block, hashed against its CID', async () => {
    expect(leaf.root.code).toBe(raw.code);
    const got = await fetchIpfsVerified(leaf.root.toString(), '', [good.origin], opts);
    expect(got.ok && Buffer.from(got.bytes).toString()).toBe(Buffer.from(SMALL).toString());
    expect(good.seen.at(-1)!.path).toBe(`/ipfs/${leaf.root}?format=raw`);
    expect(good.seen.at(-1)!.headers.accept).toBe('application/vnd.ipld.raw');
  });

  it('passes over a gateway whose CAR was altered and takes the next gateway’s verified answer', async () => {
    await withGateway('tampered', async (bad) => {
      const got = await fetchIpfsVerified(collection.root.toString(), '/meta/2.json', [bad.origin, second.origin], opts);
      expect(got.ok && Buffer.from(got.bytes).toString()).toBe(Buffer.from(SMALL).toString());
      expect(bad.seen).toHaveLength(1);
      const alone = await fetchIpfsVerified(collection.root.toString(), '/meta/2.json', [bad.origin], opts);
      expect(alone).toMatchObject({ ok: false, code: 'CID_MISMATCH', retryable: false });
      expect(!alone.ok && alone.message).toMatch(/does not hash to its CID/);
    });
  });

  it('refuses an altered raw block', async () => {
    await withGateway('tampered', async (bad) => {
      expect(await fetchIpfsVerified(leaf.root.toString(), '', [bad.origin], opts)).toMatchObject({ ok: false, code: 'CID_MISMATCH' });
    });
  });

  it('refuses a valid CAR of other content, naming the block it lacked', async () => {
    await withGateway('other', async (bad) => {
      const got = await fetchIpfsVerified(collection.root.toString(), '/meta/1.json', [bad.origin], opts);
      expect(got).toMatchObject({ ok: false, code: 'CID_MISMATCH' });
      expect(!got.ok && got.message).toContain(`block ${collection.root} is missing`);
    });
  });

  it('refuses a CAR missing one of the file’s blocks', async () => {
    const third = CID.createV1(raw.code, await sha256.digest(BIG.subarray(2048, 3072)));
    await withGateway('good', async (bad) => {
      bad.drop.add(third.toString());
      const got = await fetchIpfsVerified(collection.root.toString(), '/meta/1.json', [bad.origin], opts);
      expect(got).toMatchObject({ ok: false, code: 'CID_MISMATCH' });
      expect(!got.ok && got.message).toContain(`block ${third} is missing`);
    });
  });

  it('skips a gateway answering 429 or 500; when all fail the answer is retryable', async () => {
    await withGateway(429, async (busy) => {
      await withGateway(500, async (broken) => {
        const got = await fetchIpfsVerified(collection.root.toString(), '/meta/2.json', [busy.origin, broken.origin, good.origin], opts);
        expect(got.ok).toBe(true);
        const none = await fetchIpfsVerified(collection.root.toString(), '/meta/2.json', [busy.origin, broken.origin], opts);
        expect(none).toMatchObject({ ok: false, code: 'HTTP_STATUS', status: 429, retryable: true });
        expect(!none.ok && none.message).toContain(broken.origin);
      });
    });
  });

  it('caps a file by its unfolded size, not the CAR’s (blocks shared many times)', async () => {
    const got = await fetchIpfsVerified(zeros.root.toString(), '/zeros.bin', [good.origin], { ...opts, maxBytes: 100 * 1024 });
    expect(got).toMatchObject({ ok: false, code: 'TOO_LARGE' });
  });

  it('answers a name the verified directory lacks as 404, a directory as unsupported', async () => {
    expect(await fetchIpfsVerified(collection.root.toString(), '/meta/3.json', [good.origin], opts)).toMatchObject({ ok: false, code: 'HTTP_STATUS', status: 404, retryable: false });
    expect(await fetchIpfsVerified(collection.root.toString(), '/meta', [good.origin], opts)).toMatchObject({ ok: false, code: 'UNSUPPORTED_URI' });
  });

  it('refuses a bad CID, a raw CID with a path and a dot segment without asking any gateway', async () => {
    const before = good.seen.length;
    expect(await fetchIpfsVerified('QmNotACid', '', [good.origin], opts)).toMatchObject({ ok: false, code: 'UNSUPPORTED_URI', retryable: false });
    expect(await fetchIpfsVerified(leaf.root.toString(), '/x', [good.origin], opts)).toMatchObject({ ok: false, code: 'UNSUPPORTED_URI' });
    expect(await fetchIpfsVerified(collection.root.toString(), '/meta/../x', [good.origin], opts)).toMatchObject({ ok: false, code: 'UNSUPPORTED_URI' });
    expect(good.seen.length).toBe(before);
  });

  it('reads an identity CID from the CID itself', async () => {
    const cid = CID.createV1(raw.code, identity.digest(SMALL));
    const got = await fetchIpfsVerified(cid.toString(), '', [], opts);
    expect(got.ok && Buffer.from(got.bytes).toString()).toBe(Buffer.from(SMALL).toString());
  });
});
