// The encoded variants this process serves most, in memory, least recently served dropped first,
// bounded by their bytes (MEDIA_CACHE_MB) so serving ten thousand distinct images keeps the
// process's memory flat. Nothing ever goes stale: a variant never changes under its key.
import type { StoredVariant } from './media-store.js';

/** A variant larger than this share of the cache is served without being kept (it would push out many small ones). */
const MAX_ENTRY_SHARE = 1 / 16;

export interface VariantCache {
  get(key: string): StoredVariant | undefined;
  set(key: string, value: StoredVariant): void;
  delete(key: string): void;
  stats(): { entries: number; bytes: number; maxBytes: number };
}

export function createVariantCache(maxBytes: number): VariantCache {
  // a Map iterates in insertion order: re-inserting on a hit keeps the oldest first
  const entries = new Map<string, StoredVariant>();
  let bytes = 0;
  const remove = (key: string) => {
    const old = entries.get(key);
    if (!old) return;
    entries.delete(key);
    bytes -= old.bytes.length;
  };
  return {
    get(key) {
      const hit = entries.get(key);
      if (hit) {
        entries.delete(key);
        entries.set(key, hit);
      }
      return hit;
    },
    set(key, value) {
      if (value.bytes.length > maxBytes * MAX_ENTRY_SHARE) return;
      remove(key);
      entries.set(key, value);
      bytes += value.bytes.length;
      for (const [oldest] of entries) {
        if (bytes <= maxBytes) break;
        remove(oldest);
      }
    },
    delete: remove,
    stats: () => ({ entries: entries.size, bytes, maxBytes }),
  };
}
