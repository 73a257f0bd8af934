// The peer bench's requests and their answer check. One function builds each system's request
// for a shape, used both by the check and by the load (so what is measured is what was checked).
// The check, before any load: this service answers without errors and with rows; the SQL floor's
// body equals this service's byte for byte (or, reported as such, only as parsed JSON); PostGraphile
// returns the same rows (same keys in the same order, same prices). While it runs, each server's
// statements are recorded for EXPLAIN.
import { isDeepStrictEqual } from 'node:util';
import { JSON_HEADERS, request, type ChildServer, type LoadJob } from './helpers.js';
import type { WireStatement } from './pg-wire-count.mjs';
import type { Shape } from './peer-shapes.js';
import type { Picks } from './scale-loader.js';

export type Job = Omit<LoadJob, 'duration' | 'connections'>;
export type System = 'ours' | 'peer' | 'floor';

export interface Bases {
  ours: string;
  peer: string;
  floor: string;
}

const gql = (url: string, query: string, variables: Record<string, unknown>): Job => ({
  url,
  method: 'POST',
  headers: JSON_HEADERS,
  body: JSON.stringify({ query, variables }),
  expectPrefix: '{"data"',
  refuse: '"errors"',
});

/** The request each system gets for `shape` (null: PostGraphile cannot answer it). */
export function jobFor(system: System, shape: Shape, bases: Bases, picks: Picks): Job | null {
  const vars = shape.vars(picks);
  if (system === 'ours') {
    return 'query' in shape.ours ? gql(`${bases.ours}/graphql`, shape.ours.query, vars) : { url: bases.ours + shape.ours.path(picks), method: 'GET', expectPrefix: '{"success":true' };
  }
  if (system === 'peer') return 'query' in shape.peer ? gql(`${bases.peer}/graphql`, shape.peer.query, vars) : null;
  return {
    url: `${bases.floor}/${shape.key}`,
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ variables: vars }),
    expectPrefix: 'query' in shape.ours ? '{"data"' : '{"success":true',
  };
}

/** This service could not answer the shape (an error, a timeout): reported, the shape is left out of the load. */
export class ServiceFailed extends Error {
  constructor(
    message: string,
    /** what it sent to PostgreSQL for that request (to EXPLAIN why) */
    readonly captured: WireStatement[],
  ) {
    super(message);
  }
}

export interface Checked {
  shape: Shape;
  /** floor body = this service's: byte for byte, or only as parsed JSON */
  equality: 'bytes' | 'deep';
  bytes: number;
  rows: number;
  attempts: number;
  captured: Partial<Record<System, WireStatement[]>>;
}

/** Where two texts first differ, with some context of each. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const at = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 120), i + 160));
  return `first difference at byte ${i} of ${a.length} / ${b.length}:\n    this service: ${at(a)}\n    SQL floor:    ${at(b)}`;
}

const sameRows = (a: string[][], b: string[][]) => a.length === b.length && a.every((r, i) => r[0] === b[i]![0] && r[1] === b[i]![1]);

async function send(job: Job) {
  return request(job.url, { method: job.method, body: job.body });
}

/**
 * Checks one shape (see the file comment); throws with what differs. A shape whose answer moves
 * with the clock (sales windows: a sale crossing a window edge between the two requests) is retried.
 */
export async function checkShape(shape: Shape, bases: Bases, picks: Picks, servers: Record<System, ChildServer>): Promise<Checked> {
  const captured: Checked['captured'] = {};
  const attemptsMax = shape.clock ? 3 : 1;
  // The request captured is one this service sends under load: its shape's template made (second
  // request) and its generic-plan verdict given (asked at the third, src/read-engine/generic-plans.ts).
  for (let i = 0; i < 3; i++) await send(jobFor('ours', shape, bases, picks)!);
  await new Promise((r) => setTimeout(r, 300));
  let problem = '';
  for (let attempt = 1; attempt <= attemptsMax; attempt++) {
    let ours!: Awaited<ReturnType<typeof send>>;
    let floor!: Awaited<ReturnType<typeof send>>;
    captured.ours = await servers.ours.capture(async () => void (ours = await send(jobFor('ours', shape, bases, picks)!)));
    captured.floor = await servers.floor.capture(async () => void (floor = await send(jobFor('floor', shape, bases, picks)!)));
    if (ours.status !== 200 || ours.json?.errors || !ours.json) {
      throw new ServiceFailed(`shape ${shape.key} (${shape.title}): this service answered HTTP ${ours.status}: ${ours.text.slice(0, 800)}`, captured.ours);
    }
    const rows = shape.oursRows(ours.json);
    if (!rows?.length || rows.every((r) => r[0] === '|')) throw new Error(`shape ${shape.key} (${shape.title}): this service answered no rows: ${ours.text.slice(0, 500)}`);
    if (floor.status !== 200) throw new Error(`shape ${shape.key}: the SQL floor failed (HTTP ${floor.status}): ${floor.text.slice(0, 800)}`);
    const equality = ours.text === floor.text ? 'bytes' : isDeepStrictEqual(ours.json, floor.json) ? 'deep' : null;
    if (!equality) {
      problem = `shape ${shape.key} (${shape.title}): the SQL floor's answer differs from this service's (attempt ${attempt} of ${attemptsMax}); ${firstDifference(ours.text, floor.text)}`;
      continue;
    }
    const result: Checked = { shape, equality, bytes: ours.text.length, rows: rows.filter((r) => r[0] !== '|').length, attempts: attempt, captured };
    const peerJob = jobFor('peer', shape, bases, picks);
    if (peerJob) {
      let peer!: Awaited<ReturnType<typeof send>>;
      captured.peer = await servers.peer.capture(async () => void (peer = await send(peerJob)));
      const theirs = peer.json?.errors ? null : shape.peerRows!(peer.json);
      if (!theirs) throw new Error(`shape ${shape.key} (${shape.title}): PostGraphile did not answer: ${peer.text.slice(0, 800)}`);
      if (!sameRows(rows, theirs)) {
        throw new Error(`shape ${shape.key} (${shape.title}): PostGraphile answered other rows (${theirs.length} vs ${rows.length}):\n    this service: ${JSON.stringify(rows.slice(0, 5))}\n    PostGraphile: ${JSON.stringify(theirs.slice(0, 5))}`);
      }
    }
    return result;
  }
  throw new Error(problem);
}
