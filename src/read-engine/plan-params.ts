// A statement's parameters as the planner adds them. Beside each value it keeps, for the values
// computed from the clock, the function that computed them: a statement template
// (./statement-template.ts) computes those again for each request's clock and reuses the rest.
import type { AddClockParam } from '../services/clock-param.js';
import { Params } from '../services/order-page-sql.js';

export class PlanParams extends Params {
  /** index of a value (0-based) -> how it follows from the clock */
  readonly clock = new Map<number, (now: Date) => unknown>();

  constructor(private readonly now: Date) {
    super();
  }

  /** A parameter computed from the request's clock (the only way a planner may read the clock). */
  readonly at: AddClockParam = (value, cast = '') => {
    const sql = this.add(value(this.now), cast);
    this.clock.set(this.values.length - 1, value);
    return sql;
  };
}
