// Tokens and the book around them, as the resolvers read them (the read engine renders the same
// answers in one statement: src/read-engine/token-reads.ts). The rules of which orders count are
// ./token-sql.ts; here the best ask, best bid, owners and last sale are read through Prisma, one
// statement per batch or per token, so the engine's SQL is compared against an independent path.
import { ServiceError } from '../domain/errors.js';
import { EMPTY_TRAIT_FILTER, type TokenTraitFilter } from '../domain/token-filter.js';
import { pageOfScan, type PageQuery, type PageRules } from '../domain/page-args.js';
import type { Order, Sale } from '../generated/prisma/client.js';
import { nowSeconds, type ServiceDeps } from './deps.js';
import { Params } from './order-page-sql.js';
import {
  liveSideSql,
  parseTokenCursor,
  tokenCursorSql,
  tokenKeysetSql,
  tokenOrderSql,
  tokenPageRowsSql,
  type BookParams,
  type BookSide,
  type TokenSort,
} from './token-sql.js';

export interface TokenKey {
  collectionAddress: string;
  /** decimal text */
  tokenId: string;
}

export interface TokenPage {
  tokens: (TokenKey & { cursor: string })[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  totalCount: number;
}

export interface TokenOwner {
  owner: string;
  balance: string;
}

export interface DepthLevel {
  price: string;
  orderCount: number;
  amount: string;
  cumulativeAmount: string;
}

export interface BookDepth {
  side: BookSide;
  levelCount: number;
  orderCount: number;
  totalAmount: string;
  minPrice: string | null;
  maxPrice: string | null;
  levels: DepthLevel[];
}

export const MAX_TOKEN_PAGE = 150;
/** Query.tokens' page arguments (src/domain/page-args.ts), for the resolver and the read engine. */
export const TOKEN_PAGE_RULES: PageRules = { max: MAX_TOKEN_PAGE, defaultSize: 20, isCursor: (c) => parseTokenCursor(c) !== null };
export const MAX_DEPTH_LEVELS = 100;

/** Statement parameters for ./token-sql.ts: the clock and the network's strategy lists, each added once. */
export function bookParams(add: (value: unknown, cast: string) => string, now: () => string, strategies: { standardSale: readonly string[]; collectionOffer: readonly string[] }): BookParams {
  let standard: string | undefined;
  let offers: string | undefined;
  return {
    now,
    standardSale: () => (standard ??= add([...strategies.standardSale], '::varchar[]')),
    collectionOffer: () => (offers ??= add([...strategies.collectionOffer], '::varchar[]')),
  };
}

/** When a listing went live here: stored, or its signed start if later (unix seconds). */
export const listedAt = (ask: Pick<Order, 'createdAt' | 'startTime'>): bigint => {
  const stored = BigInt(Math.floor(ask.createdAt.getTime() / 1000));
  return stored > ask.startTime ? stored : ask.startTime;
};

const keyOf = (k: TokenKey) => `${k.collectionAddress}:${k.tokenId}`;

export function createTokenService(deps: ServiceDeps) {
  const { prisma, sql } = deps.db;
  const strategies = deps.network.strategies;
  const live = () => {
    const now = nowSeconds(deps);
    return { status: 'VALID' as const, startTime: { lte: now }, endTime: { gte: now } };
  };

  /** A token the index knows (held now, or named by an order), or null. */
  async function getToken(collectionAddress: string, tokenId: string): Promise<TokenKey | null> {
    const [held, ordered] = await Promise.all([
      prisma.tokenBalance.findFirst({ where: { collectionAddress, tokenId, balance: { gt: 0 } }, select: { owner: true } }),
      prisma.order.findFirst({ where: { collectionAddress, tokenId }, select: { id: true } }),
    ]);
    return held || ordered ? { collectionAddress, tokenId } : null;
  }

  /**
   * One page of a collection's tokens in the sort; cursors = `<ask price or ->:<token id>` (after:
   * the previous page's last row, before: the next page's first), forward or from the end.
   */
  async function listTokens(q: PageQuery & { collection: string; listed: boolean | null; sort: TokenSort; filter?: TokenTraitFilter }): Promise<TokenPage> {
    const p = new Params();
    const b = bookParams((v, cast) => p.add(v, cast), () => p.add(nowSeconds(deps).toString(), '::bigint'), strategies);
    const rows = tokenPageRowsSql(b, p.add(q.collection), { listed: q.listed, sort: q.sort, filter: q.filter ?? EMPTY_TRAIT_FILTER }, (v, cast) => p.add(v, cast));
    const counted = [...p.values];
    const bounds = (['after', 'before'] as const).flatMap((side) => {
      if (q[side] === undefined) return [];
      const cursor = parseTokenCursor(q[side]);
      if (!cursor) throw new ServiceError('INVALID_CURSOR', `${side}: ${JSON.stringify(q[side])} is not a token cursor`);
      return [tokenKeysetSql(q.sort, side, cursor, 'r', (v) => p.add(v, '::numeric'))];
    });
    const where = bounds.length ? `WHERE ${bounds.join(' AND ')}` : '';
    const [page, count] = await Promise.all([
      sql.query<{ collection_address: string; token_id: string; cursor: string }>(
        `SELECT r.collection_address, r.token_id::text AS token_id, ${tokenCursorSql('r', q.sort)} AS cursor FROM (${rows}) r ${where} ORDER BY ${tokenOrderSql(q.sort, 'r', q.fromEnd, q.listed === true)} LIMIT ${q.first + 1}`,
        p.values,
      ),
      sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM (${rows}) r`, counted),
    ]);
    const { rows: shown, hasNextPage, hasPreviousPage } = pageOfScan(page, q);
    return {
      tokens: shown.map((r) => ({ collectionAddress: r.collection_address, tokenId: r.token_id, cursor: r.cursor })),
      hasNextPage,
      hasPreviousPage,
      totalCount: Number(count[0]!.n),
    };
  }

  /** Holders with a positive balance: largest balance first, then by address. */
  async function owners(keys: readonly TokenKey[]): Promise<TokenOwner[][]> {
    const rows = await prisma.tokenBalance.findMany({
      where: { OR: keys.map((k) => ({ collectionAddress: k.collectionAddress, tokenId: k.tokenId })), balance: { gt: 0 } },
    });
    const by = new Map<string, TokenOwner[]>();
    for (const r of rows) {
      const key = keyOf({ collectionAddress: r.collectionAddress, tokenId: r.tokenId.toFixed() });
      by.set(key, [...(by.get(key) ?? []), { owner: r.owner, balance: r.balance.toFixed() }]);
    }
    const order = (a: TokenOwner, b: TokenOwner) => {
      const d = BigInt(b.balance) - BigInt(a.balance);
      return d !== 0n ? (d > 0n ? 1 : -1) : a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0;
    };
    return keys.map((k) => (by.get(keyOf(k)) ?? []).sort(order));
  }

  /** The cheapest live fixed-price listing of each token; ties: the oldest. */
  function bestAsks(keys: readonly TokenKey[]): Promise<(Order | null)[]> {
    return Promise.all(
      keys.map((k) =>
        prisma.order.findFirst({
          where: { collectionAddress: k.collectionAddress, tokenId: k.tokenId, isOrderAsk: true, strategy: { in: strategies.standardSale }, ...live() },
          orderBy: [{ price: 'asc' }, { id: 'asc' }],
        }),
      ),
    );
  }

  /** The highest live offer that can fill each token: its token offers and the collection's offers; ties: the oldest. */
  function bestBids(keys: readonly TokenKey[]): Promise<(Order | null)[]> {
    return Promise.all(
      keys.map((k) =>
        prisma.order.findFirst({
          where: {
            collectionAddress: k.collectionAddress,
            isOrderAsk: false,
            ...live(),
            OR: [
              { tokenId: k.tokenId, strategy: { in: strategies.standardSale } },
              { tokenId: null, strategy: { in: strategies.collectionOffer } },
            ],
          },
          orderBy: [{ price: 'desc' }, { id: 'asc' }],
        }),
      ),
    );
  }

  /** Each token's newest sale. */
  function lastSales(keys: readonly TokenKey[]): Promise<(Sale | null)[]> {
    return Promise.all(
      keys.map((k) =>
        prisma.sale.findFirst({ where: { collectionAddress: k.collectionAddress, tokenId: k.tokenId }, orderBy: [{ timestamp: 'desc' }, { id: 'desc' }] }),
      ),
    );
  }

  /**
   * One side of a collection's book (or of what can trade one token): every price level, best
   * first (asks ascending, bids descending), the first `first` of them with order counts,
   * amounts and the running amount; the level count and price range over the whole side.
   */
  async function depth(collection: string, tokenId: string | null, side: BookSide, first: number): Promise<BookDepth> {
    if (!Number.isInteger(first) || first < 1 || first > MAX_DEPTH_LEVELS) {
      throw new ServiceError('BAD_REQUEST', `Invalid argument first: must be a whole number from 1 to ${MAX_DEPTH_LEVELS}`, [
        { field: 'first', code: 'BAD_REQUEST', message: `must be a whole number from 1 to ${MAX_DEPTH_LEVELS}` },
      ]);
    }
    const p = new Params();
    const b = bookParams((v, cast) => p.add(v, cast), () => p.add(nowSeconds(deps).toString(), '::bigint'), strategies);
    const where = liveSideSql(side, 'o', b, p.add(collection), tokenId === null ? undefined : p.add(tokenId, '::numeric'));
    const rows = await sql.query<{ price: string; n: number; amount: string }>(
      `SELECT o.price::text AS price, count(*)::int AS n, sum(o.amount)::text AS amount FROM orders o WHERE ${where} GROUP BY o.price`,
      p.values,
    );
    const levels = rows.map((r) => ({ price: BigInt(r.price), orderCount: Number(r.n), amount: BigInt(r.amount) }));
    levels.sort((x, y) => (x.price === y.price ? 0 : (x.price < y.price) === (side === 'ASK') ? -1 : 1));
    let running = 0n;
    const shown = levels.slice(0, first).map((l) => {
      running += l.amount;
      return { price: l.price.toString(), orderCount: l.orderCount, amount: l.amount.toString(), cumulativeAmount: running.toString() };
    });
    const prices = levels.map((l) => l.price);
    return {
      side,
      levelCount: levels.length,
      orderCount: levels.reduce((s, l) => s + l.orderCount, 0),
      totalAmount: levels.reduce((s, l) => s + l.amount, 0n).toString(),
      minPrice: prices.length ? prices.reduce((m, x) => (x < m ? x : m)).toString() : null,
      maxPrice: prices.length ? prices.reduce((m, x) => (x > m ? x : m)).toString() : null,
      levels: shown,
    };
  }

  return { getToken, listTokens, owners, bestAsks, bestBids, lastSales, depth };
}

export type TokenService = ReturnType<typeof createTokenService>;
const byDeps = new WeakMap<ServiceDeps, TokenService>();
/** The token service of these dependencies, built on first use. */
export function tokenService(deps: ServiceDeps): TokenService {
  let s = byDeps.get(deps);
  if (!s) byDeps.set(deps, (s = createTokenService(deps)));
  return s;
}
