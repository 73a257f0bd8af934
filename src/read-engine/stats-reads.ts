// Collection.stats rendered in SQL, only what the selection asks for (statsFor in
// src/services/stats.ts is the reference; the engine's random test compares the two byte for
// byte). A window's sums are P(hi) - P(lo), where P(t), the sales at or before t, is
//   daily buckets of the days before day(t) + hourly buckets [day(t), hour(t)) + raw sales [hour(t), t]
// (stats.ts explains why that is exact). Only the edges the selected fields use are read (a card
// asking for volume24h reads P(now) and P(now - 24h), not the twelve edges of every window): the
// daily buckets in one scan for all edges, from the oldest edge's day unless an all-time figure
// is asked for; per edge, one hourly and one raw range scan. Amounts stay NUMERIC; averages
// and percentages round half away from zero in integer arithmetic, as src/domain/stats-math.ts.
import type { FieldNode } from 'graphql';
import { floorAtSql } from '../db/floor-sql.js';
import { FLOOR_CHANGE_WINDOWS, STATS_WINDOWS } from '../domain/stats-math.js';
import { jsonEther, jsonGlobalId, jsonNullableString, jsonObjectSql, jsonString } from './json-sql.js';
import { collectFields, subSelections } from './selection.js';
import type { Planner } from './read-type.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** divRound (stats-math.ts) of two NUMERIC integers, the denominator > 0: half away from zero. */
const divRound = (n: string, d: string) => `(CASE WHEN ${n} < 0 THEN -div(-(${n}) * 2 + ${d}, 2 * ${d}) ELSE div((${n}) * 2 + ${d}, 2 * ${d}) END)`;

/** percentChange (stats-math.ts): "12.50", "0.00" with no baseline and no change, else null without one. */
function percentChange(current: string, previous: string): string {
  const h = divRound(`(${current} - ${previous}) * 10000`, previous);
  const formatted = `(CASE WHEN ${h} < 0 THEN '-' ELSE '' END || div(abs(${h}), 100)::text || '.' || lpad(mod(abs(${h}), 100)::text, 2, '0'))`;
  return `CASE WHEN ${previous} = 0 THEN CASE WHEN ${current} = 0 THEN '"0.00"' ELSE 'null' END ELSE to_json(${formatted})::text END`;
}

const etherOrNull = (sql: string) => `CASE WHEN ${sql} IS NULL THEN 'null' ELSE ${jsonEther(sql)} END`;

/**
 * The stats object of the collection row `t`, as JSON text. Window edges are instants of the
 * request's clock (milliseconds, as statsFor's) computed here, each a parameter, so PostgreSQL
 * compares columns with constants instead of computing an edge for every row it reads.
 */
export function planCollectionStats(p: Planner, nodes: readonly FieldNode[], t: string): string {
  const a = `${t}.address`;
  // edges in JavaScript, as statsFor's: UTC days and hours of the request's clock
  const instant = (secondsBack: number, unit = 1) => p.instantSql(secondsBack, unit);
  // the prefix sums the fields need, by edge (seconds before now), each computed once below
  const edges = new Map<number, string>();
  const prefix = (secondsBack: number) => {
    let name = edges.get(secondsBack);
    if (!name) edges.set(secondsBack, (name = `p${edges.size}`));
    return { v: `x.${name}v`, c: `x.${name}c` };
  };
  const needs = { floor: false, supply: false, owners: false, floorAt: new Map<number, string>() };
  // a ranked card's key is one of its statistics already (the same sums, the same instant)
  const known = p.rankKeys.get(t);
  const knownFloor = known && 'floor' in known ? known.floor : null;
  const floor = () => knownFloor ?? ((needs.floor = true), 'x.floor');
  const supply = () => ((needs.supply = true), `COALESCE(x.supply, 0)`);
  const floorAt = (seconds: number) => {
    const name = `x.floor${seconds}`;
    needs.floorAt.set(seconds, name);
    return name;
  };

  const windows = new Map<string, (f: string) => string>();
  for (const w of STATS_WINDOWS) {
    const cur = () => {
      const now = prefix(0);
      const lo = prefix(w.seconds);
      return { v: `(${now.v} - ${lo.v})`, c: `(${now.c} - ${lo.c})` };
    };
    const volume = () => (known && 'volume' in known && known.volume.seconds === w.seconds ? known.volume.sql : cur().v);
    windows.set(`volume${w.label}`, () => jsonString(`${volume()}::text`));
    windows.set(`volume${w.label}Eth`, () => jsonEther(volume()));
    windows.set(`count${w.label}`, () => jsonString(`${cur().c}::text`));
    windows.set(`average${w.label}`, () => jsonString(average(cur())));
    windows.set(`average${w.label}Eth`, () => jsonEther(average(cur())));
    windows.set(`change${w.label}`, () => {
      const lo = prefix(w.seconds);
      const lo2 = prefix(2 * w.seconds);
      return percentChange(cur().v, `(${lo.v} - ${lo2.v})`);
    });
  }
  const absolute = { used: false };
  const all = () => ((absolute.used = true), prefix(0));
  const fields: Record<string, () => string> = {
    address: () => jsonString(a),
    id: () => jsonGlobalId('CollectionStats', a),
    countOwners: () => ((needs.owners = true), jsonString(`COALESCE(x.owners, 0)::text`)),
    totalSupply: () => jsonString(`${supply()}::text`),
    floorPrice: () => jsonNullableString(`${floor()}::text`),
    floorPriceEth: () => etherOrNull(floor()),
    marketCap: () => jsonNullableString(`(${floor()} * ${supply()})::text`),
    marketCapEth: () => etherOrNull(`(${floor()} * ${supply()})`),
    volumeAll: () => jsonString(`${all().v}::text`),
    volumeAllEth: () => jsonEther(all().v),
    countAll: () => jsonString(`${all().c}::text`),
    averageAll: () => jsonString(average(all())),
    averageAllEth: () => jsonEther(average(all())),
    ...Object.fromEntries(FLOOR_CHANGE_WINDOWS.map((w) => [`floorChange${w.label}`, () => `CASE WHEN ${floor()} IS NULL OR ${floorAt(w.seconds)} IS NULL THEN 'null' ELSE ${percentChange(floor(), floorAt(w.seconds))} END`])),
    ...Object.fromEntries(windows),
  };

  const parts: { key: string; sql: string }[] = [];
  for (const [key, fieldNodes] of collectFields(subSelections(nodes), 'CollectionStats', p.scope)) {
    const name = fieldNodes[0]!.name.value;
    if (name === '__typename') parts.push({ key, sql: `'"CollectionStats"'` });
    else if (fields[name]) parts.push({ key, sql: fields[name]!() });
    else p.unrenderable(`CollectionStats.${name}`);
  }

  // The prefixes once per collection row. Daily buckets: one scan for every edge (a FILTERed sum
  // per edge). A prefix is relative to a base day (the oldest edge's), which cancels out of every
  // window (P(hi) - P(lo)), so a card asking for volume24h reads two days, not the collection's
  // history; only the all-time figures need the absolute prefix, and then the scan has no base.
  // Hourly buckets and the last hour of raw sales: one range scan per edge, sum and count at once.
  // Each read is a scalar sub-select returning an array (sums and counts), never a FROM item:
  // a dozen FROM items made PostgreSQL search join orders (planning 2 -> 20 ms).
  const reads: string[] = [];
  const columns: string[] = [];
  if (edges.size) {
    const edgeAt = (secondsBack: number) => instant(secondsBack);
    const dayOf = (secondsBack: number) => instant(secondsBack, DAY_MS);
    const oldest = Math.max(...edges.keys());
    const newest = Math.min(...edges.keys());
    const base = absolute.used ? '' : ` AND d.day_start >= ${dayOf(oldest)}`;
    const daySums: string[] = [];
    for (const secondsBack of edges.keys()) {
      daySums.push(`SUM(d.volume) FILTER (WHERE d.day_start < ${dayOf(secondsBack)})`, `SUM(d.count) FILTER (WHERE d.day_start < ${dayOf(secondsBack)})`);
    }
    reads.push(`(SELECT ARRAY[${daySums.join(', ')}] FROM sale_day_buckets d WHERE d.collection_address = ${a}${base} AND d.day_start < ${dayOf(newest)}) AS days`);
    let i = 0;
    for (const [secondsBack, name] of edges) {
      const hour0 = instant(secondsBack, HOUR_MS);
      reads.push(
        `(SELECT ARRAY[SUM(h.volume), SUM(h.count)] FROM sale_buckets h WHERE h.collection_address = ${a} AND h.bucket_start >= ${dayOf(secondsBack)} AND h.bucket_start < ${hour0}) AS ${name}h`,
        `(SELECT ARRAY[SUM(s.price), COUNT(*)] FROM sales s WHERE s.collection_address = ${a} AND s.timestamp >= ${hour0} AND s.timestamp <= ${edgeAt(secondsBack)}) AS ${name}r`,
      );
      // a sum over no rows is NULL, a count 0
      columns.push(
        `(COALESCE(y.days[${2 * i + 1}], 0) + COALESCE(y.${name}h[1], 0) + COALESCE(y.${name}r[1], 0)) AS ${name}v`,
        `(COALESCE(y.days[${2 * i + 2}], 0) + COALESCE(y.${name}h[2], 0) + y.${name}r[2]) AS ${name}c`,
      );
      i++;
    }
  }
  const keep = (sql: string, name: string) => (reads.push(`${sql} AS ${name}`), columns.push(`y.${name}`));
  if (needs.floor) keep(floorAtSql(a, p.nowSql(), p.strategies.standardSale), 'floor');
  if (needs.supply) keep(`(SELECT cs.total_supply FROM collection_supply cs WHERE cs.collection_address = ${a})`, 'supply');
  if (needs.owners) keep(`(SELECT cs.count_owners FROM collection_supply cs WHERE cs.collection_address = ${a})`, 'owners');
  for (const [seconds, name] of needs.floorAt) {
    keep(`(SELECT f.floor_price FROM floor_history f WHERE f.collection_address = ${a} AND f.at <= ${instant(seconds)} ORDER BY f.at DESC, f.id DESC LIMIT 1)`, name.slice(2));
  }
  const json = jsonObjectSql(parts);
  // OFFSET 0 keeps the planner from pulling the reads up, which would copy each read's
  // sub-query into every expression that uses it (planning went from 1 to 19 ms)
  return reads.length ? `(SELECT ${json} FROM (SELECT ${columns.join(', ')} FROM (SELECT ${reads.join(', ')} OFFSET 0) y) x)` : json;
}

function average(s: { v: string; c: string }): string {
  return `(CASE WHEN ${s.c} = 0 THEN '0' ELSE ${divRound(s.v, s.c)}::text END)`;
}
