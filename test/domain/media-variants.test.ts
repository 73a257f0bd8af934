// Media paths and URLs, and the sizes variants get.
import { describe, expect, it } from 'vitest';
import { mediaPath, mediaUrlFor, ownMediaSha256, parseMediaPath, variantSize } from '../../src/domain/media-variants.js';

const SHA = 'ab'.repeat(32);

describe('media paths', () => {
  it('parses /media/<sha256>/<variant> and nothing looser', () => {
    expect(parseMediaPath(`/media/${SHA}/w256`)).toEqual({ ok: true, sha256: SHA, variant: 'w256' });
    expect(parseMediaPath(`/media/${SHA}/w512`)).toEqual({ ok: false, reason: 'unknown-variant' });
    for (const bad of [`/media/${SHA.toUpperCase()}/w256`, `/media/${SHA.slice(1)}/w256`, `/media/${SHA}/`, `/media/${SHA}`, `/media/${SHA}/w256/x`, `/media/${SHA}/../w256`, `/media/${SHA}/W256`, '/media/', `/media/${SHA}/constructor`.replace('constructor', '__proto__')]) {
      expect(parseMediaPath(bad), bad).toEqual({ ok: false, reason: 'malformed' });
    }
    expect(parseMediaPath(`/media/${SHA}/constructor`)).toEqual({ ok: false, reason: 'unknown-variant' });
  });

  it('builds URLs under MEDIA_BASE_URL, or root-relative, and recognises its own', () => {
    expect(mediaPath(SHA, 'w64')).toBe(`/media/${SHA}/w64`);
    expect(mediaUrlFor(undefined, SHA, 'w64')).toBe(`/media/${SHA}/w64`);
    expect(mediaUrlFor('https://cdn.example.com', SHA, 'w1024')).toBe(`https://cdn.example.com/media/${SHA}/w1024`);
    expect(ownMediaSha256(`https://cdn.example.com/media/${SHA}/w64`, 'https://cdn.example.com')).toBe(SHA);
    expect(ownMediaSha256(`/media/${SHA}/w64`, 'https://cdn.example.com')).toBe(SHA);
    expect(ownMediaSha256(`https://elsewhere.example/media/${SHA}/w64`, 'https://cdn.example.com')).toBeNull();
    expect(ownMediaSha256('https://img.example/logo.png', undefined)).toBeNull();
  });
});

describe('variantSize', () => {
  it('bounds the width, never enlarges a raster, keeps the aspect, caps tall strips', () => {
    expect(variantSize('w256', 1000, 500)).toEqual({ width: 256, height: 128 });
    expect(variantSize('w1024', 300, 200)).toEqual({ width: 300, height: 200 });
    expect(variantSize('w64', 1, 10_000)).toEqual({ width: 1, height: 256 });
    expect(variantSize('w64', 100, 10_000)).toEqual({ width: 3, height: 256 });
    expect(variantSize('w64', 24, 24, true)).toEqual({ width: 64, height: 64 });
  });
});
