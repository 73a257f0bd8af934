// Range (RFC 9110 14.2) and the entity-tag conditions (13.1) media answers with.
import { describe, expect, it } from 'vitest';
import { byteRange } from '../../src/http/byte-range.js';
import { ifRangeHolds, noneMatchHolds } from '../../src/http/entity-tag.js';

describe('byteRange', () => {
  it('serves one range of bytes, and ignores what it does not serve', () => {
    expect(byteRange(null, 100)).toEqual({ kind: 'whole' });
    expect(byteRange('bytes=0-9', 100)).toEqual({ kind: 'part', start: 0, end: 9 });
    expect(byteRange('bytes=90-', 100)).toEqual({ kind: 'part', start: 90, end: 99 });
    expect(byteRange('bytes=90-1000', 100)).toEqual({ kind: 'part', start: 90, end: 99 });
    expect(byteRange('bytes=-10', 100)).toEqual({ kind: 'part', start: 90, end: 99 });
    expect(byteRange('bytes=-1000', 100)).toEqual({ kind: 'part', start: 0, end: 99 });
    expect(byteRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(byteRange('bytes=-0', 100)).toEqual({ kind: 'unsatisfiable' });
    for (const ignored of ['bytes=0-1,5-6', 'items=0-1', 'bytes=5-1', 'bytes=-', 'bytes=a-b', 'bytes 0-1']) expect(byteRange(ignored, 100), ignored).toEqual({ kind: 'whole' });
  });
});

describe('entity tags', () => {
  const tag = '"0123456789abcdef0123456789abcdef"';
  it('If-None-Match compares weakly, in a list, or *', () => {
    expect(noneMatchHolds(null, tag)).toBe(false);
    expect(noneMatchHolds(tag, tag)).toBe(true);
    expect(noneMatchHolds(`"x", W/${tag}`, tag)).toBe(true);
    expect(noneMatchHolds('*', tag)).toBe(true);
    expect(noneMatchHolds('"other"', tag)).toBe(false);
  });
  it('If-Range holds only for our strong tag', () => {
    expect(ifRangeHolds(null, tag)).toBe(true);
    expect(ifRangeHolds(tag, tag)).toBe(true);
    expect(ifRangeHolds(`W/${tag}`, tag)).toBe(false);
    expect(ifRangeHolds('Sat, 01 Jan 2000 00:00:00 GMT', tag)).toBe(false);
  });
});
