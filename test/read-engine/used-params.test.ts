import { describe, expect, it } from 'vitest';
import { usedParams } from '../../src/read-engine/used-params.js';

describe('usedParams', () => {
  it('keeps a statement that uses every parameter as it is', () => {
    expect(usedParams('SELECT $1::int + $2', [1, 2])).toEqual({ text: 'SELECT $1::int + $2', values: [1, 2], kept: [0, 1] });
  });

  it('drops the parameters the text never names and renumbers the rest in order', () => {
    const r = usedParams('SELECT $2::text, $4, $2, $12', ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l']);
    expect(r).toEqual({ text: 'SELECT $1::text, $2, $1, $3', values: ['b', 'd', 'l'], kept: [1, 3, 11] });
  });

  it('sends no values when no parameter is used', () => {
    expect(usedParams('SELECT 1', [5, 6])).toEqual({ text: 'SELECT 1', values: [], kept: [] });
  });
});
