// Token URIs as contracts return them: every accepted spelling of IPFS, Arweave, data: and http(s)
// content, and the strings refused (with which code).
import { describe, expect, it } from 'vitest';
import { CID } from 'multiformats/cid';
import { base36 } from 'multiformats/bases/base36';
import { base58btc } from 'multiformats/bases/base58';
import { expandTokenIdTemplate, gatewayUrl, parseContentUri, type ContentSource } from '../../src/domain/token-uri.js';

const V0 = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';
const V1 = CID.parse(V0).toV1().toString(); // bafybei...
const V1_BASE36 = CID.parse(V1).toString(base36);
const V1_BASE58 = CID.parse(V1).toString(base58btc); // 'z...'
const AR_ID = 'bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U';

const sourceOf = (uri: string): ContentSource => {
  const parsed = parseContentUri(uri);
  if (!parsed.ok) throw new Error(`${uri.slice(0, 80)} refused: ${parsed.problem.message}`);
  return parsed.source;
};
const text = (s: ContentSource) => (s.kind === 'inline' ? new TextDecoder().decode(s.bytes) : null);

describe('parseContentUri: IPFS', () => {
  it('ipfs://CID and ipfs://CID/path, CIDv0 kept in base58btc and v1 in base32', () => {
    expect(V1).toMatch(/^bafy/);
    expect(sourceOf(`ipfs://${V0}`)).toEqual({ kind: 'ipfs', cid: V0, path: '' });
    expect(sourceOf(`ipfs://${V0}/1.json`)).toEqual({ kind: 'ipfs', cid: V0, path: '/1.json' });
    expect(sourceOf(`ipfs://${V1}/a/b.json`)).toEqual({ kind: 'ipfs', cid: V1, path: '/a/b.json' });
    expect(sourceOf(`IPFS://${V1}/`)).toEqual({ kind: 'ipfs', cid: V1, path: '' });
  });

  it('the ipfs://ipfs/CID spelling', () => {
    expect(sourceOf(`ipfs://ipfs/${V0}/7`)).toEqual({ kind: 'ipfs', cid: V0, path: '/7' });
  });

  it('a bare CID, with or without a path', () => {
    expect(sourceOf(V0)).toEqual({ kind: 'ipfs', cid: V0, path: '' });
    expect(sourceOf(V1)).toEqual({ kind: 'ipfs', cid: V1, path: '' });
    expect(sourceOf(`${V0}/42.json`)).toEqual({ kind: 'ipfs', cid: V0, path: '/42.json' });
  });

  it('canonicalises v1 CIDs written in other bases', () => {
    expect(sourceOf(`ipfs://${V1.toUpperCase()}`)).toEqual({ kind: 'ipfs', cid: V1, path: '' });
    expect(sourceOf(`ipfs://${V1_BASE58}/x`)).toEqual({ kind: 'ipfs', cid: V1, path: '/x' });
    expect(sourceOf(`ipfs://${V1_BASE36}`)).toEqual({ kind: 'ipfs', cid: V1, path: '' });
  });

  it('path gateway URLs on any host are read as IPFS content, query and fragment dropped', () => {
    expect(sourceOf(`https://ipfs.io/ipfs/${V0}/1.json`)).toEqual({ kind: 'ipfs', cid: V0, path: '/1.json' });
    expect(sourceOf(`http://127.0.0.1:8080/ipfs/${V1}`)).toEqual({ kind: 'ipfs', cid: V1, path: '' });
    expect(sourceOf(`https://gateway.pinata.cloud/ipfs/${V0}/img.png?filename=img.png#top`)).toEqual({ kind: 'ipfs', cid: V0, path: '/img.png' });
  });

  it('subdomain gateway URLs are read as IPFS content', () => {
    expect(sourceOf(`https://${V1}.ipfs.dweb.link/meta/3.json`)).toEqual({ kind: 'ipfs', cid: V1, path: '/meta/3.json' });
    expect(sourceOf(`https://${V1_BASE36}.ipfs.w3s.link/`)).toEqual({ kind: 'ipfs', cid: V1, path: '' });
  });

  it('paths in one spelling: empty and "." segments dropped, escapes normalised, "%20" allowed', () => {
    expect(sourceOf(`ipfs://${V0}//a/./b%2Ejson`)).toEqual({ kind: 'ipfs', cid: V0, path: '/a/b.json' });
    expect(sourceOf(`ipfs://${V0}/My%20Cat%21.png`)).toEqual({ kind: 'ipfs', cid: V0, path: '/My%20Cat!.png' });
    expect(sourceOf(`ipfs://${V0}/%E6%97%A5.json`)).toEqual({ kind: 'ipfs', cid: V0, path: '/%E6%97%A5.json' });
    expect(sourceOf(`ipfs://${V0}/a:b@c+d.json`)).toEqual({ kind: 'ipfs', cid: V0, path: '/a:b@c+d.json' });
  });

  it('a gateway-looking URL whose CID is not a CID stays an ordinary URL', () => {
    expect(sourceOf('https://example.com/ipfs/not-a-cid/1.json')).toEqual({ kind: 'http', url: 'https://example.com/ipfs/not-a-cid/1.json' });
    expect(sourceOf('https://api.ipfs.example.com/1')).toEqual({ kind: 'http', url: 'https://api.ipfs.example.com/1' });
    expect(sourceOf(`https://ipfs.io/ipns/${V1}/1`)).toEqual({ kind: 'http', url: `https://ipfs.io/ipns/${V1}/1` });
  });
});

describe('parseContentUri: Arweave, http, data and inline JSON', () => {
  it('ar:// and arweave.net URLs', () => {
    expect(sourceOf(`ar://${AR_ID}`)).toEqual({ kind: 'arweave', id: AR_ID, path: '' });
    expect(sourceOf(`ar://${AR_ID}/0.json`)).toEqual({ kind: 'arweave', id: AR_ID, path: '/0.json' });
    expect(sourceOf(`https://arweave.net/${AR_ID}/0.json?ext=json`)).toEqual({ kind: 'arweave', id: AR_ID, path: '/0.json' });
    expect(sourceOf(`https://abcdefgh.arweave.net/${AR_ID}`)).toEqual({ kind: 'arweave', id: AR_ID, path: '' });
    expect(sourceOf('https://arweave.net/graphql')).toEqual({ kind: 'http', url: 'https://arweave.net/graphql' });
  });

  it('http(s) URLs, normalised, query kept and fragment dropped', () => {
    expect(sourceOf('https://api.example.com/token/1?v=2#x')).toEqual({ kind: 'http', url: 'https://api.example.com/token/1?v=2' });
    expect(sourceOf('HTTP://Example.COM:80/a')).toEqual({ kind: 'http', url: 'http://example.com/a' });
    expect(sourceOf(' \n https://example.com/1 \t')).toEqual({ kind: 'http', url: 'https://example.com/1' });
  });

  it('data: with base64, percent-encoded and plain text', () => {
    const json = '{"name":"Cat #1 — 100% on-chain"}';
    const b64 = sourceOf(`data:application/json;base64,${Buffer.from(json).toString('base64')}`);
    expect(b64).toMatchObject({ kind: 'inline', mediaType: 'application/json', parameters: {} });
    expect(text(b64)).toBe(json);
    expect(text(sourceOf(`data:application/json,${encodeURIComponent(json)}`))).toBe(json);
    // raw text as many contracts return it: spaces, non-ASCII and a '%' that escapes nothing
    const plain = sourceOf(`data:application/json;utf8,${json}`);
    expect(plain).toMatchObject({ kind: 'inline', mediaType: 'application/json', parameters: { utf8: '' } });
    expect(text(plain)).toBe(json);
  });

  it('data: media type, its parameters and the RFC 2397 default', () => {
    expect(sourceOf('data:,Hello%2C%20World!')).toEqual({ kind: 'inline', mediaType: 'text/plain', bytes: new TextEncoder().encode('Hello, World!'), parameters: { charset: 'US-ASCII' } });
    expect(sourceOf('data:;charset=utf-8,x')).toMatchObject({ mediaType: 'text/plain', parameters: { charset: 'utf-8' } });
    expect(sourceOf('data:Application/JSON; Charset="UTF-8" ;base64,e30=')).toMatchObject({ mediaType: 'application/json', parameters: { charset: 'UTF-8' } });
    const svg = sourceOf('data:image/svg+xml;base64,PHN2\nZy8+');
    expect(svg).toMatchObject({ kind: 'inline', mediaType: 'image/svg+xml' });
    expect(text(svg)).toBe('<svg/>');
    expect(text(sourceOf('data:text/plain;base64,YQ'))).toBe('a'); // padding optional
    expect(text(sourceOf('data:text/plain;base64,YQ%3D%3D'))).toBe('a');
    expect(sourceOf('data:text/plain;__proto__=x,a')).toMatchObject({ parameters: { ['__proto__']: 'x' } });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('data: binary bytes survive percent-decoding', () => {
    const s = sourceOf('data:application/octet-stream,%00%FF%80a');
    expect(s.kind === 'inline' && [...s.bytes]).toEqual([0, 255, 128, 97]);
  });

  it('JSON returned as the URI itself is inline JSON', () => {
    const s = sourceOf('  {"name": "On-chain",\n "attributes": []}  ');
    expect(s).toMatchObject({ kind: 'inline', mediaType: 'application/json' });
    expect(text(s)).toBe('{"name": "On-chain",\n "attributes": []}');
  });

  it('data: URIs up to 8 MiB are accepted', () => {
    const big = `data:text/plain,${'a'.repeat(8 * 1024 * 1024 - 16)}`;
    expect(sourceOf(big)).toMatchObject({ kind: 'inline' });
  });
});

describe('parseContentUri refusals', () => {
  const refused: [uri: string, code: 'UNSUPPORTED_URI' | 'INVALID_URI'][] = [
    ['', 'INVALID_URI'],
    ['   \n\t ', 'INVALID_URI'],
    ['ftp://example.com/1.json', 'UNSUPPORTED_URI'],
    ['file:///etc/passwd', 'UNSUPPORTED_URI'],
    ['javascript:alert(1)', 'UNSUPPORTED_URI'],
    ['ipns://k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8/1', 'UNSUPPORTED_URI'],
    ['mailto:a@example.com', 'UNSUPPORTED_URI'],
    ['/metadata/1.json', 'UNSUPPORTED_URI'],
    ['hello world', 'INVALID_URI'],
    ['https://user:pass@example.com/1', 'UNSUPPORTED_URI'],
    [`https://example.com/${'a'.repeat(16 * 1024)}`, 'INVALID_URI'],
    [`data:text/plain,${'a'.repeat(8 * 1024 * 1024)}`, 'INVALID_URI'],
    [`{"name":"${'a'.repeat(8 * 1024 * 1024)}"}`, 'INVALID_URI'],
    ['https://example.com/a b', 'INVALID_URI'],
    ['https://example.com/a\tb', 'INVALID_URI'],
    ['https://example.com/a\u0000', 'INVALID_URI'],
    ['https://example.com/\u0085', 'INVALID_URI'],
    [`ipfs:/${V0}`, 'INVALID_URI'],
    [`ipfs:${V0}`, 'INVALID_URI'],
    ['ipfs://not-a-cid/1.json', 'INVALID_URI'],
    ['ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbd', 'INVALID_URI'],
    [`ipfs://${V0}/../${V1}`, 'INVALID_URI'],
    [`ipfs://${V0}/a/%2e%2E/b`, 'INVALID_URI'],
    [`ipfs://${V0}/a%2Fb`, 'INVALID_URI'],
    [`ipfs://${V0}/a%5Cb`, 'INVALID_URI'],
    [`ipfs://${V0}/%zz`, 'INVALID_URI'],
    [`ipfs://${V0}/%FF.json`, 'INVALID_URI'],
    [`ipfs://${V0}/a%00`, 'INVALID_URI'],
    [`https://ipfs.io/ipfs/${V0}/%2e%2e%2fx`, 'INVALID_URI'],
    ['ar://tooshort', 'INVALID_URI'],
    [`ar:/${AR_ID}`, 'INVALID_URI'],
    [`ar://${AR_ID}/../x`, 'INVALID_URI'],
    ['https://', 'INVALID_URI'],
    ['http://[::1', 'INVALID_URI'],
    ['data:application/json', 'INVALID_URI'],
    ['data:application/json;base64,e30*', 'INVALID_URI'],
    ['data:application/json;base64,e', 'INVALID_URI'],
    ['data:not a type,x', 'INVALID_URI'],
    ['data:text/plain;=x,a', 'INVALID_URI'],
    ['data:text/plain,a\u0000b', 'INVALID_URI'],
    ['{"a":"\u0001"}', 'INVALID_URI'],
  ];
  it.each(refused)('refuses %j', (uri, code) => {
    const parsed = parseContentUri(uri);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.problem.code).toBe(code);
      expect(parsed.problem.message.length).toBeGreaterThan(0);
      expect(parsed.problem.message.length).toBeLessThan(300); // a hostile URI is not echoed whole
    }
  });
});

describe('expandTokenIdTemplate', () => {
  it('replaces every {id} with 64 lower-case hex digits', () => {
    expect(expandTokenIdTemplate('https://x.io/{id}.json', 0n)).toBe(`https://x.io/${'0'.repeat(64)}.json`);
    expect(expandTokenIdTemplate('ipfs://Qm/{id}/{id}', 0xabcn)).toBe(`ipfs://Qm/${'0'.repeat(61)}abc/${'0'.repeat(61)}abc`);
    expect(expandTokenIdTemplate('x/{id}', (1n << 256n) - 1n)).toBe(`x/${'f'.repeat(64)}`);
    expect(expandTokenIdTemplate('https://x.io/{ID}/1', 5n)).toBe('https://x.io/{ID}/1');
  });

  it('refuses ids outside uint256', () => {
    expect(() => expandTokenIdTemplate('{id}', -1n)).toThrow(RangeError);
    expect(() => expandTokenIdTemplate('{id}', 1n << 256n)).toThrow(RangeError);
  });
});

describe('gatewayUrl', () => {
  it('gives the public URL of each source through our gateways', () => {
    expect(gatewayUrl(sourceOf(`https://evil.example/ipfs/${V0}/1.json`), 'https://ipfs.ours.net/', 'https://ar.ours.net')).toBe(`https://ipfs.ours.net/ipfs/${V0}/1.json`);
    expect(gatewayUrl(sourceOf(`ipfs://${V1}`), 'https://ipfs.ours.net', 'https://ar.ours.net')).toBe(`https://ipfs.ours.net/ipfs/${V1}`);
    expect(gatewayUrl(sourceOf(`ar://${AR_ID}/a.png`), 'https://ipfs.ours.net', 'https://ar.ours.net//')).toBe(`https://ar.ours.net/${AR_ID}/a.png`);
    expect(gatewayUrl(sourceOf('https://example.com/a?b=1'), 'https://ipfs.ours.net', 'https://ar.ours.net')).toBe('https://example.com/a?b=1');
    expect(gatewayUrl(sourceOf('data:,x'), 'https://ipfs.ours.net', 'https://ar.ours.net')).toBeNull();
  });
});
