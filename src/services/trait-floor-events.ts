// Runs the trait floor pass (src/db/trait-floor-sql.ts) on a timer: every instance may run it,
// the pass's own lock lets one at a time through and the others skip. A full batch of log rows is
// followed at once by the next pass, so a burst is caught up within one tick.
import { TRAIT_FLOOR_BATCH, TRAIT_FLOOR_LAST_PASS_SQL, traitFloorPassScript } from '../db/trait-floor-sql.js';
import { nowSeconds, type ServiceDeps } from './deps.js';

/** Passes per run at most: a log far behind is caught up over several runs, never in one long loop. */
const PASSES_PER_RUN = 20;

export interface TraitFloorPass {
  /** log rows read */
  events: number;
  /** TRAIT_FLOOR_CHANGE events written */
  moves: number;
}

export function createTraitFloorEvents(deps: Pick<ServiceDeps, 'db' | 'network' | 'now' | 'config'>) {
  const sql = deps.db.sql;
  /** One pass at the service's clock. */
  async function pass(): Promise<TraitFloorPass> {
    await sql.exec(traitFloorPassScript(nowSeconds(deps), deps.network.strategies.standardSale));
    const [row] = await sql.query<TraitFloorPass>(TRAIT_FLOOR_LAST_PASS_SQL);
    return row ?? { events: 0, moves: 0 };
  }
  /** Passes until the log is read (or PASSES_PER_RUN): the moves written in all. */
  async function runOnce(): Promise<TraitFloorPass> {
    const total = { events: 0, moves: 0 };
    for (let i = 0; i < PASSES_PER_RUN; i++) {
      const p = await pass();
      total.events += p.events;
      total.moves += p.moves;
      if (p.events < TRAIT_FLOOR_BATCH) break;
    }
    return total;
  }
  return { pass, runOnce };
}

export type TraitFloorEvents = ReturnType<typeof createTraitFloorEvents>;

/** The timer; `everyMs` 0 turns it off. */
export function startTraitFloorEvents(events: TraitFloorEvents, everyMs: number, log: { warn(o: object, m: string): void }) {
  if (everyMs <= 0) return null;
  let running: Promise<unknown> | null = null;
  const tick = () => {
    running ??= events
      .runOnce()
      .catch((err) => log.warn({ err }, 'the trait floor pass failed; retrying at the next tick'))
      .finally(() => (running = null));
  };
  const timer = setInterval(tick, everyMs).unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
