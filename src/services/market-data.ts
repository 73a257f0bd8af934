// The operator feed of external ("global") market data that listing rewards rank by (spec 2.8):
// the admin mutation upsertMarketData and `npm run market-data:import` both land here.
// A batch is validated whole (every problem listed, with its index) and written in one
// statement, so it is applied whole or not at all.
import * as z from 'zod';
import { normalizeAddress } from '../domain/address.js';
import { badRequest, ServiceError, type FieldProblem } from '../domain/errors.js';
import { parseUint256 } from '../domain/uint256.js';
import type { ServiceDeps } from './deps.js';

/** An observation may be this far ahead of our clock (the operator's clock may run fast). */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

const address = z.unknown().transform((v, ctx) => {
  const a = normalizeAddress(v);
  if (!a) {
    ctx.addIssue({ code: 'custom', message: 'must be an address: 0x followed by 40 hexadecimal digits', params: { code: 'INVALID_ADDRESS' } });
    return z.NEVER;
  }
  return a;
});

const uint256 = z.unknown().transform((v, ctx) => {
  const n = parseUint256(v);
  if (n === null) {
    ctx.addIssue({ code: 'custom', message: 'must be a decimal integer string from 0 to 2^256-1 (wei)' });
    return z.NEVER;
  }
  return n;
});

const entrySchema = z
  .object({
    collection: address,
    volume24hGlobal: uint256,
    floorGlobal: uint256,
    // An ISO 8601 date-time with its zone, so an operator's file means the same everywhere.
    observedAt: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with a zone, e.g. 2026-06-01T12:00:00Z' }).nullish(),
  })
  .strict();

export interface MarketDataEntry {
  collection: string;
  volume24hGlobal: bigint;
  floorGlobal: bigint;
  observedAt: Date;
}

export interface MarketDataResult {
  /** entries stored */
  written: number;
  /** entries older than what was already stored for their collection, left as they were */
  ignoredOlder: number;
}

function problemsOf(i: number, error: z.ZodError): FieldProblem[] {
  return error.issues.map((issue) => ({
    field: `[${i}]${issue.path.length ? `.${issue.path.join('.')}` : ''}`,
    code:
      (issue as { params?: { code?: string } }).params?.code ??
      (issue.code === 'unrecognized_keys' ? 'UNKNOWN_FIELD' : issue.code === 'invalid_type' ? 'INVALID_TYPE' : 'INVALID_VALUE'),
    message: issue.message,
  }));
}

export function createMarketDataService(deps: ServiceDeps) {
  const { sql } = deps.db;

  /**
   * Parses a batch: the valid entries (observedAt resolved), every problem, and the addresses
   * to look up (also of entries with other problems, so an unknown collection is reported too).
   */
  function parseBatch(list: unknown) {
    if (!Array.isArray(list)) throw new ServiceError('BAD_REQUEST', 'market data must be a JSON array of {collection, volume24hGlobal, floorGlobal, observedAt?}');
    const now = deps.now();
    const problems: FieldProblem[] = [];
    const entries: MarketDataEntry[] = [];
    const collections: { index: number; address: string }[] = [];
    const seen = new Map<string, number>();
    list.forEach((raw, i) => {
      const address = normalizeAddress((raw as { collection?: unknown } | null)?.collection);
      if (address) {
        collections.push({ index: i, address });
        // One statement cannot upsert a row twice; two observations of one collection in one
        // batch are also more likely a mistake than intended.
        const first = seen.get(address);
        if (first !== undefined) problems.push({ field: `[${i}].collection`, code: 'DUPLICATE', message: `the same collection as entry [${first}]` });
        else seen.set(address, i);
      }
      const r = entrySchema.safeParse(raw);
      if (!r.success) return void problems.push(...problemsOf(i, r.error));
      const observedAt = r.data.observedAt ? new Date(r.data.observedAt) : now;
      if (observedAt.getTime() > now.getTime() + MAX_CLOCK_SKEW_MS) {
        problems.push({ field: `[${i}].observedAt`, code: 'IN_FUTURE', message: `must not be later than now (${now.toISOString()}) by more than 5 minutes` });
      }
      entries.push({ collection: r.data.collection, volume24hGlobal: r.data.volume24hGlobal, floorGlobal: r.data.floorGlobal, observedAt });
    });
    return { entries, problems, collections };
  }

  /**
   * Stores a batch of observations (one per collection). A collection must already exist. An
   * observation older than the stored one is ignored, so replaying an old file cannot make
   * fresh data stale again.
   */
  async function upsertMarketData(list: unknown): Promise<MarketDataResult> {
    const { entries, problems, collections } = parseBatch(list);
    if (collections.length) {
      const known = new Set(
        (await sql.query<{ address: string }>('SELECT address FROM collections WHERE address = ANY($1::text[])', [collections.map((c) => c.address)])).map((r) => r.address),
      );
      for (const c of collections) {
        if (!known.has(c.address)) problems.push({ field: `[${c.index}].collection`, code: 'UNKNOWN_COLLECTION', message: `no collection has the address ${c.address}` });
      }
    }
    if (problems.length) {
      // by entry, in the order found within an entry
      const entryOf = (p: FieldProblem) => Number(/^\[(\d+)\]/.exec(p.field)![1]);
      problems.sort((a, b) => entryOf(a) - entryOf(b));
      throw badRequest(problems, `the market data has ${problems.length} problem(s); nothing was written`);
    }
    if (!entries.length) return { written: 0, ignoredOlder: 0 };
    const rows = await sql.query<{ n: number }>(
      `WITH up AS (
         INSERT INTO global_market_data (collection_address, volume_24h_global, floor_global, observed_at)
         SELECT * FROM unnest($1::text[], $2::numeric[], $3::numeric[], $4::timestamptz[])
         ON CONFLICT (collection_address) DO UPDATE
           SET volume_24h_global = EXCLUDED.volume_24h_global, floor_global = EXCLUDED.floor_global, observed_at = EXCLUDED.observed_at
           WHERE global_market_data.observed_at <= EXCLUDED.observed_at
         RETURNING 1
       )
       SELECT COUNT(*)::int AS n FROM up`,
      [
        entries.map((e) => e.collection),
        entries.map((e) => e.volume24hGlobal.toString()),
        entries.map((e) => e.floorGlobal.toString()),
        entries.map((e) => e.observedAt.toISOString()),
      ],
    );
    const written = rows[0]?.n ?? 0;
    return { written, ignoredOlder: entries.length - written };
  }

  return { upsertMarketData };
}

export type MarketDataService = ReturnType<typeof createMarketDataService>;
