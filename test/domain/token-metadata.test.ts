// Metadata documents as contracts serve them, typical and hostile, turned into the fields we store.
import { describe, expect, it } from 'vitest';
import { METADATA_LIMITS, normaliseMetadata, type NormalisedMetadata } from '../../src/domain/token-metadata.js';

const CID = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';
const encode = (s: string) => new TextEncoder().encode(s);

function metadataOf(doc: unknown): NormalisedMetadata {
  const r = normaliseMetadata(encode(typeof doc === 'string' ? doc : JSON.stringify(doc)));
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return r.metadata;
}
const refusal = (bytes: Uint8Array) => {
  const r = normaliseMetadata(bytes);
  return r.ok ? 'accepted' : r.code;
};

describe('normaliseMetadata: a typical OpenSea document', () => {
  it('keeps every documented field', () => {
    const m = metadataOf({
      name: 'Dave Starbelly',
      description: 'Friendly OpenSea Creature that enjoys long swims in the ocean.\n\nSecond paragraph.',
      image: `ipfs://${CID}/3.png`,
      animation_url: 'https://storage.example.com/3.mp4',
      external_url: 'https://openseacreatures.io/3',
      background_color: 'ffffff',
      attributes: [
        { trait_type: 'Base', value: 'Starfish' },
        { trait_type: 'Eyes', value: 'Big' },
        { trait_type: 'Level', value: 5 },
        { trait_type: 'Stamina', value: 1.4 },
        { display_type: 'boost_number', trait_type: 'Aqua Power', value: 40 },
        { display_type: 'boost_percentage', trait_type: 'Stamina Increase', value: 10 },
        { display_type: 'number', trait_type: 'Generation', value: 2 },
        { display_type: 'date', trait_type: 'birthday', value: 1546360800 },
      ],
    });
    expect(m).toEqual({
      name: 'Dave Starbelly',
      description: 'Friendly OpenSea Creature that enjoys long swims in the ocean.\n\nSecond paragraph.',
      image: `ipfs://${CID}/3.png`,
      animationUrl: 'https://storage.example.com/3.mp4',
      externalUrl: 'https://openseacreatures.io/3',
      attributes: [
        { traitType: 'Base', value: 'Starfish', displayType: null, kind: 'STRING', numberValue: null },
        { traitType: 'Eyes', value: 'Big', displayType: null, kind: 'STRING', numberValue: null },
        { traitType: 'Level', value: '5', displayType: null, kind: 'NUMBER', numberValue: 5 },
        { traitType: 'Stamina', value: '1.4', displayType: null, kind: 'NUMBER', numberValue: 1.4 },
        { traitType: 'Aqua Power', value: '40', displayType: 'boost_number', kind: 'NUMBER', numberValue: 40 },
        { traitType: 'Stamina Increase', value: '10', displayType: 'boost_percentage', kind: 'NUMBER', numberValue: 10 },
        { traitType: 'Generation', value: '2', displayType: 'number', kind: 'NUMBER', numberValue: 2 },
        { traitType: 'birthday', value: '1546360800', displayType: 'date', kind: 'DATE', numberValue: 1546360800 },
      ],
      warnings: [],
    });
  });

  it('an empty object is valid metadata with nothing in it', () => {
    expect(metadataOf({})).toEqual({ name: null, description: null, image: null, animationUrl: null, externalUrl: null, attributes: [], warnings: [] });
  });
});

describe('normaliseMetadata: decoding and limits', () => {
  it('skips a BOM and refuses invalid UTF-8', () => {
    expect(normaliseMetadata(new Uint8Array([0xef, 0xbb, 0xbf, ...encode('{"name":"x"}')]))).toMatchObject({ ok: true, metadata: { name: 'x' } });
    expect(refusal(new Uint8Array([...encode('{"name":"'), 0xc3, 0x28, ...encode('"}')]))).toBe('INVALID_JSON');
    expect(refusal(new Uint8Array([...encode('{"name":"'), 0xed, 0xa0, 0x80, ...encode('"}')]))).toBe('INVALID_JSON'); // an encoded surrogate
  });

  it('refuses documents over 256 KiB before reading them', () => {
    const doc = JSON.stringify({ name: 'x', description: 'a'.repeat(300 * 1024) });
    expect(refusal(encode(doc))).toBe('TOO_LARGE');
    expect(refusal(new Uint8Array(METADATA_LIMITS.maxDocumentBytes + 1))).toBe('TOO_LARGE');
  });

  it('refuses what is not a JSON object: an HTML page, a list, null, a number, empty bytes', () => {
    expect(refusal(encode('<!DOCTYPE html><html><body>502 Bad Gateway</body></html>'))).toBe('INVALID_JSON');
    expect(refusal(encode(''))).toBe('INVALID_JSON');
    expect(refusal(encode('{"name": "x",}'))).toBe('INVALID_JSON');
    expect(refusal(encode('[{"name":"x"}]'))).toBe('INVALID_METADATA');
    expect(refusal(encode('null'))).toBe('INVALID_METADATA');
    expect(refusal(encode('42'))).toBe('INVALID_METADATA');
    expect(refusal(encode('"{}"'))).toBe('INVALID_METADATA');
  });

  it('refuses nesting deeper than 32 without recursing, a million levels included', () => {
    const deep = (levels: number) => `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    expect(refusal(encode(deep(32)))).toBe('accepted');
    expect(refusal(encode(deep(33)))).toBe('INVALID_METADATA');
    // the deepest document the size limit lets through: 262,144 levels, refused by the scan
    expect(refusal(encode('['.repeat(METADATA_LIMITS.maxDocumentBytes)))).toBe('INVALID_METADATA');
    // over the size limit it is refused even sooner; the scan alone copes with any depth
    expect(refusal(encode(`{"a":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`))).toBe('TOO_LARGE');
    expect(refusal(encode(`{"a":${'{"b":'.repeat(40_000)}1${'}'.repeat(40_000)}}`))).toBe('INVALID_METADATA');
    // brackets inside strings, escaped quotes included, are not nesting
    expect(metadataOf({ name: `\\"${'['.repeat(100)}"{{{`, description: '}]'.repeat(50) }).name).toBe(`\\"${'['.repeat(100)}"{{{`);
  });
});

describe('normaliseMetadata: text fields', () => {
  it('strips NUL and control characters, keeps line breaks and tabs in the description', () => {
    const m = metadataOf({ name: 'Cat\u0000 #1\u0007\u009b', description: ' a\r\nb\tc\u0000\u001b[31m \r' });
    expect(m.name).toBe('Cat #1');
    expect(m.description).toBe('a\nb\tc[31m');
    expect(m.warnings).toEqual(['name: control characters removed', 'description: control characters removed']);
  });

  it('trims, treats empty text as absent, and takes a number as its text', () => {
    expect(metadataOf({ name: '  Cat  ', description: '   ' })).toMatchObject({ name: 'Cat', description: null, warnings: [] });
    expect(metadataOf({ name: 17 }).name).toBe('17');
    expect(metadataOf({ name: { en: 'x' }, description: ['x'] })).toMatchObject({ name: null, description: null, warnings: ['name: not text, left out', 'description: not text, left out'] });
  });

  it('caps text at the limits on a code point boundary', () => {
    const m = metadataOf({ name: '🐱'.repeat(300), description: 'd'.repeat(20_000) });
    expect([...m.name!]).toHaveLength(METADATA_LIMITS.maxName);
    expect(m.name).toBe('🐱'.repeat(200));
    expect(m.description).toHaveLength(METADATA_LIMITS.maxDescription);
    expect(m.warnings).toEqual(['name: cut to 200 characters', 'description: cut to 10000 characters']);
    expect(metadataOf({ name: 'a'.repeat(199) + '🐱' }).name).toBe('a'.repeat(199) + '🐱');
  });

  it('replaces lone surrogates (which UTF-8 cannot hold) with U+FFFD', () => {
    expect(metadataOf('{"name":"a\\ud800b\\udc00"}').name).toBe('a\uFFFDb\uFFFD');
    expect(metadataOf('{"name":"\\ud83d\\udc31"}').name).toBe('🐱');
  });
});

describe('normaliseMetadata: URLs', () => {
  it('image from image, else image_url, else image_data', () => {
    expect(metadataOf({ image: 'https://a.example/1.png', image_url: 'https://b.example/1.png' }).image).toBe('https://a.example/1.png');
    expect(metadataOf({ image_url: 'https://b.example/1.png', image_data: '<svg/>' }).image).toBe('https://b.example/1.png');
    const m = metadataOf({ image: 'not a url', image_url: `ar://${'a'.repeat(43)}` });
    expect(m.image).toBe(`ar://${'a'.repeat(43)}`);
    expect(m.warnings).toHaveLength(1);
    expect(m.warnings[0]).toMatch(/^image: .*left out$/);
  });

  it('image_data SVG becomes a base64 data: URI, <script> and all, encoded and never run', () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script><rect width="1" height="1"/></svg>';
    const m = metadataOf({ image_data: `  ${svg}\n` });
    expect(m.image).toBe(`data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`);
    expect(m.image).not.toContain('<script>');
    expect(metadataOf({ image_data: 'data:image/svg+xml;base64,PHN2Zy8+' }).image).toBe('data:image/svg+xml;base64,PHN2Zy8+');
    expect(metadataOf({ image_data: 'just text' })).toMatchObject({ image: null, warnings: ['image_data: not SVG markup, left out'] });
  });

  it('keeps http(s), ipfs, ar and data: URLs as written, and nothing else', () => {
    for (const url of ['https://x.example/a.png', `ipfs://${CID}`, CID, `ar://${'b'.repeat(43)}/x`, 'data:image/png;base64,iVBORw0KGgo=', 'http://x.example/a?b=1']) {
      expect(metadataOf({ image: url, animation_url: url, external_url: url }), url).toMatchObject({ image: url, animationUrl: url, externalUrl: url, warnings: [] });
    }
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'ftp://x.example/a', '/relative.png', 'ipfs:/Qm', '{"a":1}', 'https://u:p@x.example/', 'https://x.example/\u0000']) {
      const m = metadataOf({ image: url, animation_url: url, external_url: url });
      expect(m, url).toMatchObject({ image: null, animationUrl: null, externalUrl: null });
      expect(m.warnings, url).toHaveLength(3);
    }
  });

  it('external_link when there is no external_url; surrounding whitespace trimmed', () => {
    expect(metadataOf({ external_link: ' https://x.example/ ' }).externalUrl).toBe('https://x.example/');
  });

  it('caps URLs at 4096 characters but lets a data: URI run to the document limit', () => {
    const long = `https://x.example/${'a'.repeat(5000)}`;
    expect(metadataOf({ image: long })).toMatchObject({ image: null, warnings: ['image: longer than 4096 characters, left out'] });
    const onChain = `data:image/svg+xml;base64,${Buffer.from(`<svg>${'<g/>'.repeat(20_000)}</svg>`).toString('base64')}`;
    expect(metadataOf({ image: onChain }).image).toBe(onChain);
    expect(metadataOf({ image: 42 })).toMatchObject({ image: null, warnings: ['image: not a URL, left out'] });
  });
});

describe('normaliseMetadata: attributes', () => {
  it('accepts traits as the list, and an object map as pairs', () => {
    expect(metadataOf({ traits: [{ trait_type: 'Hat', value: 'Cap' }] }).attributes).toEqual([{ traitType: 'Hat', value: 'Cap', displayType: null, kind: 'STRING', numberValue: null }]);
    expect(metadataOf({ attributes: { Hat: 'Cap', Level: 3, Shiny: true } }).attributes).toEqual([
      { traitType: 'Hat', value: 'Cap', displayType: null, kind: 'STRING', numberValue: null },
      { traitType: 'Level', value: '3', displayType: null, kind: 'NUMBER', numberValue: 3 },
      { traitType: 'Shiny', value: 'true', displayType: null, kind: 'STRING', numberValue: null },
    ]);
    expect(metadataOf({ attributes: 'Hat: Cap' })).toMatchObject({ attributes: [], warnings: ['attributes: neither a list nor an object, left out'] });
  });

  it('kinds: strings, numbers, booleans, dates, numeric display types', () => {
    const a = metadataOf({
      attributes: [
        { trait_type: 'Name', value: '7' }, // a numeric string without display_type stays text
        { trait_type: 'Power', value: '12.50', display_type: 'number' },
        { trait_type: 'Boost', value: 'high', display_type: 'boost_number' },
        { trait_type: 'Flag', value: false },
        { trait_type: 'Born', value: '1546360800', display_type: 'Date' },
        { trait_type: 'Minted', value: 1546360800123, display_type: 'date' },
        { trait_type: 'When', value: 'yesterday', display_type: 'date' },
        { trait_type: 'Neg', value: -0 },
        { trait_type: 5, value: 'numeric type' },
        { value: 'no type' },
      ],
    }).attributes;
    expect(a.map((x) => [x.traitType, x.value, x.displayType, x.kind, x.numberValue])).toEqual([
      ['Name', '7', null, 'STRING', null],
      ['Power', '12.5', 'number', 'NUMBER', 12.5],
      ['Boost', 'high', 'boost_number', 'STRING', null],
      ['Flag', 'false', null, 'STRING', null],
      ['Born', '1546360800', 'date', 'DATE', 1546360800],
      ['Minted', '1546360800', 'date', 'DATE', 1546360800],
      ['When', 'yesterday', 'date', 'STRING', null],
      ['Neg', '0', null, 'NUMBER', 0],
      ['5', 'numeric type', null, 'STRING', null],
      ['', 'no type', null, 'STRING', null],
    ]);
  });

  it('skips items without a usable value, with a warning', () => {
    const m = metadataOf({ attributes: [{ trait_type: 'A', value: null }, { trait_type: 'B' }, { trait_type: 'C', value: { x: 1 } }, { trait_type: 'D', value: [1] }, 'loose', null, { trait_type: 'E', value: 'ok' }] });
    expect(m.attributes.map((a) => a.traitType)).toEqual(['E']);
    expect(m.warnings).toEqual([
      'attributes[0]: no usable value, skipped',
      'attributes[1]: no usable value, skipped',
      'attributes[2]: no usable value, skipped',
      'attributes[3]: no usable value, skipped',
      'attributes[4]: not an object, skipped',
      'attributes[5]: not an object, skipped',
    ]);
  });

  it('huge numbers: kept as the canonical JS text when finite, skipped when they overflow', () => {
    const m = metadataOf('{"name":1e400,"attributes":[{"trait_type":"Big","value":123456789012345678901234567890},{"trait_type":"Inf","value":1e400},{"trait_type":"Tiny","value":1e-400},{"trait_type":"S","value":"1e400","display_type":"number"}]}');
    expect(m.name).toBeNull();
    expect(m.attributes.map((a) => [a.traitType, a.value, a.kind, a.numberValue])).toEqual([
      ['Big', '1.2345678901234568e+29', 'NUMBER', 1.2345678901234568e29],
      ['Tiny', '0', 'NUMBER', 0],
      ['S', '1e400', 'STRING', null],
    ]);
    expect(m.warnings).toContain('attributes[1]: no usable value, skipped');
  });

  it('merges duplicate (trait type, value) pairs after normalising them', () => {
    const m = metadataOf({ attributes: [{ trait_type: 'Hat', value: 'Cap' }, { trait_type: ' Hat ', value: 'Cap ' }, { trait_type: 'Hat', value: 'cap' }, { trait_type: 'Level', value: 3 }, { trait_type: 'Level', value: '3', display_type: 'number' }] });
    expect(m.attributes.map((a) => [a.traitType, a.value])).toEqual([['Hat', 'Cap'], ['Hat', 'cap'], ['Level', '3']]);
  });

  it('caps trait types and values, and strips their control characters', () => {
    const [a] = metadataOf({ attributes: [{ trait_type: `T\u0000${'t'.repeat(150)}`, value: 'v'.repeat(600), display_type: ' NUMBER ' }] }).attributes;
    expect(a!.traitType).toBe('T' + 't'.repeat(99));
    expect(a!.value).toBe('v'.repeat(500));
    expect(a!.displayType).toBe('number');
  });

  it('10,000 attributes: the first 500 kept, with one warning, and the token still shows', () => {
    // as a list (value-only items, to stay under the size limit) and as an object map
    const list = metadataOf({ name: 'Many', attributes: Array.from({ length: 10_000 }, (_, i) => ({ value: i })) });
    expect(list.name).toBe('Many');
    expect(list.attributes).toHaveLength(METADATA_LIMITS.maxAttributes);
    expect(list.attributes.at(-1)).toEqual({ traitType: '', value: '499', displayType: null, kind: 'NUMBER', numberValue: 499 });
    expect(list.warnings).toEqual(['attributes: only the first 500 kept, items from [500] of 10000 dropped']);
    const map = metadataOf({ attributes: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`T${i}`, 'v'])) });
    expect(map.attributes).toHaveLength(METADATA_LIMITS.maxAttributes);
    expect(map.attributes.at(-1)!.traitType).toBe('T499');
  });

  it('warnings are bounded however many items go wrong', () => {
    const m = metadataOf({ attributes: Array.from({ length: 5000 }, () => null) });
    expect(m.warnings).toHaveLength(21);
    expect(m.warnings.at(-1)).toBe('4980 more warnings omitted');
  });
});

describe('normaliseMetadata: hostile keys', () => {
  it('__proto__ and constructor keys neither pollute prototypes nor stand in for fields', () => {
    const m = metadataOf('{"__proto__":{"polluted":true,"name":"inherited"},"constructor":{"prototype":{"polluted":true}},"attributes":{"__proto__":"x","toString":"y"}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(m.name).toBeNull();
    expect(m.attributes.map((a) => [a.traitType, a.value])).toEqual([['__proto__', 'x'], ['toString', 'y']]);
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
  });

  it('a document naming no fields it knows does not read inherited ones', () => {
    expect(metadataOf({ valueOf: 1, hasOwnProperty: 'x' })).toMatchObject({ name: null, attributes: [], warnings: [] });
  });
});
