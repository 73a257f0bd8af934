// Statement names: one per text, the same for the same text, none past the bound (a prepared
// statement lives as long as its connection, so arbitrary documents must not add names forever).
import { describe, expect, it } from 'vitest';
import { createPreparedNames } from '../../src/db/prepared-names.js';

describe('createPreparedNames', () => {
  it('names each text once, stably, up to the bound', () => {
    const name = createPreparedNames(3);
    const a = name('SELECT 1');
    expect(a).toMatch(/^p[0-9a-f]{24}$/);
    expect(name('SELECT 1')).toBe(a);
    expect(name('SELECT 2')).not.toBe(a);
    expect(name('SELECT 3')).toBeDefined();
    expect(name('SELECT 4')).toBeUndefined();
    expect(name('SELECT 1')).toBe(a);
    // the name depends on the text alone: another process (or pool) gives the same one
    expect(createPreparedNames(3)('SELECT 1')).toBe(a);
  });
});
