// The outages of a run, spread over it at random: an instance stopped with SIGTERM (it drains),
// an instance killed with kill -9 (it does not), each started again after a pause, and the shared
// Redis killed for a few seconds. One at a time, so one instance always serves; every kind at
// least once, about one of each per minute.
import type { Cluster } from '../../scripts/cluster/start-cluster.js';
import type { prng } from '../../src/demo/prng.js';
import type { PrivateRedis } from '../../test/helpers/private-redis.js';

export type OutageKind = 'SIGTERM' | 'kill -9' | 'Redis down';

export interface Outage {
  kind: OutageKind;
  /** the instance's index, or null for Redis */
  instance: number | null;
  /** ms after the run's start */
  at: number;
  /** from the signal to ready again (Redis: to answering again) */
  downMs: number;
}

const KINDS: OutageKind[] = ['SIGTERM', 'kill -9', 'Redis down'];

/** When each outage starts, ms after the run's start: shuffled kinds in even slots, jittered. */
export function chaosSchedule(durationMs: number, rnd: ReturnType<typeof prng>): { at: number; kind: OutageKind }[] {
  const perKind = Math.max(1, Math.round(durationMs / 60_000));
  const kinds = KINDS.flatMap((k) => Array<OutageKind>(perKind).fill(k));
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = rnd.int(0, i);
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  // between 10 % and 80 % of the run, leaving its end for the clients to be seen settling
  const from = durationMs * 0.1;
  const slot = (durationMs * 0.7) / kinds.length;
  return kinds.map((kind, i) => ({ kind, at: Math.round(from + slot * i + rnd.next() * slot * 0.5) }));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the schedule from now; resolves when the last outage has ended (every part up again). */
export async function runChaos(
  schedule: { at: number; kind: OutageKind }[],
  parts: { cluster: Cluster; redis: PrivateRedis },
  rnd: ReturnType<typeof prng>,
  log: (line: string) => void,
): Promise<Outage[]> {
  const t0 = performance.now();
  const done: Outage[] = [];
  for (const step of schedule) {
    const wait = step.at - (performance.now() - t0);
    if (wait > 0) await sleep(wait);
    const at = Math.round(performance.now() - t0);
    const started = performance.now();
    if (step.kind === 'Redis down') {
      await parts.redis.kill();
      await sleep(rnd.int(2000, 5000));
      await parts.redis.start();
      done.push({ kind: step.kind, instance: null, at, downMs: Math.round(performance.now() - started) });
    } else {
      const inst = rnd.pick(parts.cluster.instances);
      await inst.kill(step.kind === 'SIGTERM' ? 'SIGTERM' : 'SIGKILL');
      // down for a moment: clients of that instance must go to the other
      await sleep(rnd.int(500, 3000));
      await inst.restart();
      done.push({ kind: step.kind, instance: inst.index, at, downMs: Math.round(performance.now() - started) });
    }
    const o = done.at(-1)!;
    log(`  ${(at / 1000).toFixed(1).padStart(6)} s  ${o.kind}${o.instance === null ? '' : ` instance #${o.instance}`}: back after ${(o.downMs / 1000).toFixed(1)} s`);
  }
  return done;
}
