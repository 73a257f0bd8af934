// Content imported the way IPFS tools import it (ipfs-unixfs-importer), written as CARs with
// @ipld/car's CarWriter, and a fake trustless gateway serving them: `GET /ipfs/{cid}[/path]`
// with ?format=car (every block of the import: a superset of dag-scope=entity, which a reader must
// accept) or ?format=raw (one block). `mode` makes it misbehave.
import { CarWriter } from '@ipld/car/writer';
import { importer, type ImportCandidate } from 'ipfs-unixfs-importer';
import { fixedSize } from 'ipfs-unixfs-importer/chunker';
import type { CID } from 'multiformats/cid';
import { startServer, type LocalServer } from './local-servers.js';

export interface Imported {
  /** the last entry the importer yields: the wrapping directory, or the single file */
  root: CID;
  blocks: Array<{ cid: CID; bytes: Uint8Array }>;
}

export async function importContent(files: ImportCandidate[], opts: { chunkSize?: number; wrapWithDirectory?: boolean } = {}): Promise<Imported> {
  const blocks: Imported['blocks'] = [];
  const seen = new Set<string>();
  const store = {
    put(cid: CID, bytes: Uint8Array) {
      if (!seen.has(cid.toString())) blocks.push({ cid, bytes });
      seen.add(cid.toString());
      return cid;
    },
  };
  let root: CID | undefined;
  for await (const entry of importer(files, store as never, {
    rawLeaves: true,
    wrapWithDirectory: opts.wrapWithDirectory ?? false,
    chunker: fixedSize({ chunkSize: opts.chunkSize ?? 1024 }),
  })) root = entry.cid;
  return { root: root!, blocks };
}

export async function carOf(root: CID, blocks: Imported['blocks']): Promise<Uint8Array> {
  const { writer, out } = CarWriter.create([root]);
  const parts: Uint8Array[] = [];
  const collected = (async () => { for await (const p of out) parts.push(p); })();
  for (const b of blocks) await writer.put(b);
  await writer.close();
  await collected;
  return Buffer.concat(parts);
}

export type GatewayMode = 'good' | 'tampered' | 'other' | 429 | 500;

export interface FakeGateway extends LocalServer {
  mode: GatewayMode;
  /** blocks left out of every CAR (by CID text) */
  drop: Set<string>;
  /** content it can serve, by root CID */
  add(content: Imported): void;
}

export async function startGateway(mode: GatewayMode = 'good'): Promise<FakeGateway> {
  const byRoot = new Map<string, Imported>();
  const byBlock = new Map<string, Uint8Array>();
  let other: Imported | undefined;
  const gateway: FakeGateway = Object.assign(
    await startServer(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const cid = /^\/ipfs\/([^/]+)/.exec(url.pathname)?.[1] ?? '';
      if (typeof gateway.mode === 'number') return void res.writeHead(gateway.mode, { 'retry-after': '1' }).end();
      if (url.searchParams.get('format') === 'raw') {
        const block = byBlock.get(cid);
        if (!block) return void res.writeHead(404).end();
        const body = gateway.mode === 'tampered' ? flipLastByte(block) : block;
        return void res.writeHead(200, { 'content-type': 'application/vnd.ipld.raw' }).end(body);
      }
      const content = gateway.mode === 'other' ? other : byRoot.get(cid);
      if (!content) return void res.writeHead(404).end();
      const blocks = content.blocks.filter((b) => !gateway.drop.has(b.cid.toString()));
      let car = await carOf(content.root, blocks);
      if (gateway.mode === 'tampered') car = flipLastByte(car); // inside the last block's bytes
      res.writeHead(200, { 'content-type': 'application/vnd.ipld.car; version=1' }).end(car);
    }),
    {
      mode,
      drop: new Set<string>(),
      add(content: Imported) {
        byRoot.set(content.root.toString(), content);
        for (const b of content.blocks) byBlock.set(b.cid.toString(), b.bytes);
      },
    },
  );
  // what an 'other' gateway serves whatever it is asked: a valid CAR of unrelated content
  other = await importContent([{ path: 'unrelated.txt', content: new TextEncoder().encode('something else entirely') }], { wrapWithDirectory: true });
  return gateway;
}

function flipLastByte(bytes: Uint8Array): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[copy.length - 1]! ^= 0xff;
  return copy;
}
