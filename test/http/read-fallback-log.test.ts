// What the read engine logs of its generic-plan verdicts: a custom one's reason once at debug
// (a plan's shape, not a defect), a verdict the database could not give at warn.
import { describe, expect, it } from 'vitest';
import { logGenericPlanVerdicts } from '../../src/http/read-fallback-log.js';
import type { Logger } from '../../src/logger.js';
import { genericPlansOf } from '../../src/read-engine/generic-plans.js';
import type { Services } from '../../src/services/index.js';
import type { StatementTemplate } from '../../src/read-engine/statement-template.js';

const settle = () => new Promise((r) => setTimeout(r, 0));
const sorted = [{ Plan: { 'Node Type': 'Sort', Plans: [] } }];

describe('logGenericPlanVerdicts', () => {
  it('logs each reason once, a failure at warn, a generic verdict not at all', async () => {
    const deps = { config: { readGenericPlans: true } };
    const services = { deps } as unknown as Services;
    const lines: [string, object, string][] = [];
    const logger = { debug: (o: object, m: string) => lines.push(['debug', o, m]), warn: (o: object, m: string) => lines.push(['warn', o, m]) } as unknown as Logger;
    logGenericPlanVerdicts(services, logger);
    const plans = [sorted, sorted, [{ Plan: { 'Node Type': 'Limit', Plans: [] } }]];
    const runner = {
      genericPlan: async () => {
        const p = plans.shift();
        if (!p) throw new Error('too many connections');
        return p;
      },
    };
    const template = (text: string): StatementTemplate<unknown> => ({ text, bindings: [], payload: null });
    for (const text of ['a', 'b', 'c', 'd']) genericPlansOf(deps).generic(template(text), runner);
    await settle();
    expect(lines.map(([level, o]) => [level, o])).toEqual([
      ['debug', { reason: 'Sort' }],
      ['warn', { err: 'too many connections' }],
    ]);
  });
});
