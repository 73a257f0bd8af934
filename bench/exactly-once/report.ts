// What an exactly-once run prints: the market, the outages, per client what it received against
// what the log holds for its filter, the longest delay, and the verdict line.
import { fixed, table } from '../helpers.js';
import type { ExactlyOnceReport } from './harness.js';

export function printExactlyOnceReport(r: ExactlyOnceReport, minutes: number, print: (line: string) => void) {
  const count = (m: Map<string, number>) => [...m].map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
  print(`\nmarket: ${r.logEvents} events in the log (${count(r.eventTypes)}) in ${fixed(r.durationMs / 1000, 0)} s; ${r.inversions} of them committed after a higher id`);
  print(`driver: ${count(r.driver.done)}; failed ${count(r.driver.failed)}; ${r.driver.retried} order POSTs sent again to the other instance; ${r.heldEvents} events appended by SQL in transactions held open`);
  if (r.driver.reasons.length) print(`  first failures: ${r.driver.reasons.join(' | ')}`);
  const kinds = new Map<string, number>();
  for (const o of r.outages) kinds.set(o.kind, (kinds.get(o.kind) ?? 0) + 1);
  const longestOutage = Math.max(0, ...r.outages.map((o) => o.downMs));
  print(`outages caused: ${count(kinds)}; longest ${fixed(longestOutage / 1000, 1)} s (instance logs: ${r.logDir})`);
  print(
    '\n' +
      table(
        ['client', 'log ids', 'received', 'dupl.', 'missing', 'foreign', 'out of order', 'connects', 'own drops', 'server ends', 'switches', 'refused', 'errors', 'longest delay (s)'],
        r.clients.map((c) => [
          c.spec.name,
          c.verdict.expected,
          c.verdict.received,
          c.verdict.duplicates,
          c.verdict.missing,
          c.verdict.foreign,
          c.verdict.outOfOrder,
          c.stats.connects,
          c.stats.randomDrops,
          c.stats.serverEnds,
          c.stats.switches,
          c.stats.refused,
          [...c.stats.errors].map(([k, n]) => `${k}:${n}`).join(' ') || '0',
          fixed(c.longestDelayMs / 1000, 2),
        ]),
      ),
  );
  for (const c of r.clients) {
    if (c.stats.idMismatches) print(`${c.spec.name}: ${c.stats.idMismatches} frames whose id: differs from the event's eventId`);
    if (!c.verdict.exact) print(`${c.spec.name}: first difference from the log at position ${c.verdict.firstDifference}`);
  }
  const longest = Math.max(0, ...r.clients.map((c) => c.longestDelayMs));
  print(`longest delay, an off-chain event's created_at to its first receipt (outages included): ${fixed(longest / 1000, 2)} s`);
  print(
    `\nGoal: a client that disconnects at random, restarts the instance, stops Redis and switches instances receives every event id of a ` +
      `${minutes}-minute randomized market run exactly once, in order (the client deduplicates nothing): ${r.met ? 'MET' : 'NOT MET'}`,
  );
}
