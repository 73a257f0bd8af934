// Statement names: one per text, the same for the same text, none past the bound (a prepared
// statement lives as long as its connection, so arbitrary documents must not add names forever),
// and a text that may be sent once only looks its name up, so it never takes one.
import { describe, expect, it } from 'vitest';
import { createPreparedNames } from '../../src/db/prepared-names.js';

describe('createPreparedNames', () => {
  it('names each text once, stably, up to the bound', () => {
    const names = createPreparedNames(3);
    const a = names.name('SELECT 1');
    expect(a).toMatch(/^p[0-9a-f]{24}$/);
    expect(names.name('SELECT 1')).toBe(a);
    expect(names.name('SELECT 2')).not.toBe(a);
    expect(names.name('SELECT 3')).toBeDefined();
    expect(names.name('SELECT 4')).toBeUndefined();
    expect(names.name('SELECT 1')).toBe(a);
    // the name depends on the text alone: another process (or pool) gives the same one
    expect(createPreparedNames(3).name('SELECT 1')).toBe(a);
  });

  it('looks a one-off text up without naming it, so one-off texts leave the names to templates', () => {
    const names = createPreparedNames(2);
    for (let i = 0; i < 10; i++) expect(names.existing(`SELECT ${i}`)).toBeUndefined();
    const a = names.name('SELECT 1');
    expect(a).toBeDefined();
    expect(names.existing('SELECT 1')).toBe(a);
    expect(names.name('SELECT 2')).toBeDefined();
  });
});
