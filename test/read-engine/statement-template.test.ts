// The template check on planners written for the purpose: what it binds, what it refuses and why
// (the read engine's own planners are checked by the random documents in ./read-engine.test.ts).
import { describe, expect, it } from 'vitest';
import { bindTemplate, planTemplate, templateKey, type FreeInput, type PlannedStatement } from '../../src/read-engine/statement-template.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const FREE: FreeInput[] = [
  { path: 'collection', kind: 'Address' },
  { path: 'tokenId', kind: 'Uint256' },
  { path: 'filter.signer', kind: 'Address' },
];
const A = '0x8aF824cb495d13128D9e113fFfc97604AaADe966';
const B = '0x000000000000000000000000000000000000dEaD';

type Inputs = Record<string, unknown>;
/** A planner from a function of the inputs and clock to [text, values, clock functions by index]. */
const planner =
  (f: (v: Inputs, now: Date) => [string, unknown[], Record<number, (now: Date) => unknown>?]) =>
  async (v: Inputs, now: Date): Promise<PlannedStatement<number>> => {
    const [text, values, clock = {}] = f(v, now);
    return { text, values, clock: new Map(Object.entries(clock).map(([i, g]) => [Number(i), g])), volatile: false, payload: 0 };
  };
const seconds = (now: Date) => Math.floor(now.getTime() / 1000);
const same = (a: number, b: number) => a === b;

describe('statement templates', () => {
  it('binds inputs, their decimal text, the clock and constants', async () => {
    const plan = planner((v, now) => [
      'SELECT $1, $2::numeric, $3::bigint, $4, $5',
      [v.collection, String(v.tokenId), seconds(now), ['standard'], (v.filter as Inputs).signer],
      { 2: seconds },
    ]);
    const inputs = { collection: A, tokenId: 7n, filter: { signer: A }, first: 5 };
    const { planned, outcome } = await planTemplate(plan, inputs, FREE, NOW, same);
    expect(planned!.values).toEqual([A, '7', seconds(NOW), ['standard'], A]);
    if (!outcome || !('template' in outcome)) throw new Error(`no template: ${JSON.stringify(outcome)}`);
    const later = new Date(NOW.getTime() + 5000);
    expect(bindTemplate(outcome.template, { collection: B, tokenId: 1n << 200n, filter: { signer: A }, first: 5 }, later)).toEqual([
      B,
      (1n << 200n).toString(),
      seconds(later),
      ['standard'],
      A,
    ]);
  });

  it('refuses what it cannot reproduce, with the reason', async () => {
    const inputs = { collection: A, tokenId: 7n, first: 5 };
    const refusal = async (f: Parameters<typeof planner>[0]) => {
      const { outcome } = await planTemplate(planner(f), inputs, FREE, NOW, same);
      return outcome && 'none' in outcome ? outcome.none : 'template';
    };
    // the clock read without saying so
    expect(await refusal((_v, now) => ['SELECT $1', [seconds(now)]])).toMatch(/moved with the clock/);
    // an input written into the text
    expect(await refusal((v) => [`SELECT '${v.collection}'`, []])).toMatch(/shaped the statement/);
    // an input computed with, not bound
    expect(await refusal((v) => ['SELECT $1', [String(v.collection).toLowerCase()]])).toMatch(/computed from an input/);
    // a function of the clock that is not what it claims
    expect(await refusal((_v, now) => ['SELECT $1', [seconds(now)], { 0: () => 0 }])).toMatch(/not the same function of the clock/);
    // the clock in the text
    expect(await refusal((_v, now) => [`SELECT ${now.getUTCHours() > 12 ? 1 : 2}`, []])).toMatch(/clock shaped/);
    // a planning that fails at another clock (the request's own planning stands)
    expect(
      await refusal((_v, now) => {
        if (now.getTime() !== NOW.getTime()) throw new Error('no such day');
        return ['SELECT 1', []];
      }),
    ).toMatch(/failed: no such day/);
    // and a statement that only binds has its template
    expect(await refusal((v) => ['SELECT $1', [v.collection]])).toBe('template');
  });

  it('tells apart two inputs of the same value', async () => {
    const plan = planner((v) => ['SELECT $1, $2', [(v.filter as Inputs).signer, v.collection]]);
    const { outcome } = await planTemplate(plan, { collection: A, filter: { signer: A } }, FREE, NOW, same);
    if (!outcome || !('template' in outcome)) throw new Error('no template');
    expect(bindTemplate(outcome.template, { collection: A, filter: { signer: B } }, NOW)).toEqual([B, A]);
  });

  it('makes none for a volatile plan, and keys shapes by what shapes the text', async () => {
    const volatile = async (): Promise<PlannedStatement<number>> => ({ text: 'SELECT 1', values: [], clock: new Map(), volatile: true, payload: 0 });
    expect((await planTemplate(volatile, {}, FREE, NOW, same)).outcome).toEqual({ none: 'planned from data or process state' });
    expect(templateKey({ collection: A, first: 5 }, FREE)).toBe(templateKey({ collection: B, first: 5 }, FREE));
    expect(templateKey({ collection: A, first: 5 }, FREE)).not.toBe(templateKey({ collection: A, first: 6 }, FREE));
    expect(templateKey({ collection: A }, FREE)).not.toBe(templateKey({ collection: null }, FREE));
    expect(templateKey({ tokenId: 5n, filter: { signer: A } }, FREE)).toBe(templateKey({ tokenId: 9n, filter: { signer: B } }, FREE));
  });
});
