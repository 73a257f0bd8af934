// rankCollections (keys parsed once) must order exactly as sort(compareCollections), which keeps
// the definition: bigger volume / change first, lower floor first, missing values last, name in
// English without regard to case or accents, ties on the address.
import { describe, expect, it } from 'vitest';
import { compareCollections, COLLECTION_ORDERS, rankCollections, type RankedCollection } from '../../src/domain/collection-ranking.js';
import { prng } from '../../src/demo/prng.js';

function randomCollections(seed: number, n: number): RankedCollection[] {
  const rnd = prng(seed);
  const names = ['Alpha', 'alpha', 'Älpha', 'beta', 'Béta', 'zeta', 'Zeta', '42', 'éclair', 'Eclair', 'omega ape'];
  return Array.from({ length: n }, (_x, i) => ({
    address: `0x${rnd.int(0, 1e9).toString(16).padStart(8, '0')}${i.toString(16).padStart(32, '0')}`,
    name: rnd.pick(names),
    volume24h: rnd.pick(['0', '1', '10', '999999999999999999999', String(rnd.int(0, 50))]),
    volume7d: rnd.pick(['0', '5', '100000000000000000000000', String(rnd.int(0, 50))]),
    floorPrice: rnd.pick([null, '1', '20', '300000000000000000000', String(rnd.int(1, 50))]),
    change24h: rnd.pick([null, '0.00', '-50.00', '12.34', '1000.05', '-0.01', `${rnd.int(-99, 99)}.${rnd.int(10, 99)}`]),
  }));
}

describe('rankCollections', () => {
  it.each(COLLECTION_ORDERS)('orders like sort(compareCollections(%s)) over random collections with ties', (order) => {
    for (let seed = 1; seed <= 20; seed++) {
      const list = randomCollections(seed, 200);
      const want = [...list].sort(compareCollections(order)).map((c) => c.address);
      expect(rankCollections(order, [...list]).map((c) => c.address)).toEqual(want);
    }
  });

  it('compares names like localeCompare in English at base sensitivity', () => {
    const names = ['b', 'Á', 'a', 'ä', 'B', '10', '9', 'Zulu', 'zulu', 'Éclair', 'eclair', 'ecl'];
    const asNamed = (name: string, i: number): RankedCollection => ({ address: `0x${i.toString(16).padStart(40, '0')}`, name, volume24h: '0', volume7d: '0', floorPrice: null, change24h: null });
    const list = names.map(asNamed);
    const want = [...list].sort((a, b) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || (a.address < b.address ? -1 : 1));
    expect(rankCollections('NAME', [...list])).toEqual(want);
  });
});
