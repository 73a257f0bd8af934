// Relay paging checked the way a client pages: forward with first/after to the end, backward with
// last/before from the end, and windows between two cursors. Backward paging must give the rows
// of forward paging, in the same (the connection's) order, with pageInfo as the order
// connections set it (hasPreviousPage: more before the page when paging back, hasNextPage: a
// `before` was given). `page` answers one page for the arguments it is given (`first: 2, after:
// "..."`); callers route it through both read paths, so every page is also engine = resolvers.
import { expect } from 'vitest';

export interface PageAnswer {
  edges: { cursor: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}
export type Page = (args: string) => Promise<PageAnswer>;

const cursors = (p: PageAnswer) => p.edges.map((e) => e.cursor);

/** Every cursor of the connection, paging forward with first/after. */
export async function forwardCursors(page: Page, size: number): Promise<string[]> {
  const seen: string[] = [];
  let after = '';
  for (let i = 0; i < 1000; i++) {
    const p = await page(`first: ${size}${after}`);
    seen.push(...cursors(p));
    expect(p.pageInfo.hasPreviousPage).toBe(after !== '');
    if (!p.pageInfo.hasNextPage) return seen;
    after = `, after: "${p.pageInfo.endCursor}"`;
  }
  throw new Error('no last page');
}

/** Every cursor of the connection in list order, paging backward from its end with last/before. */
export async function backwardCursors(page: Page, size: number): Promise<string[]> {
  const seen: string[] = [];
  let before = '';
  for (let i = 0; i < 1000; i++) {
    const p = await page(`last: ${size}${before}`);
    seen.unshift(...cursors(p));
    expect(p.pageInfo.hasNextPage).toBe(before !== '');
    expect(p.pageInfo.startCursor).toBe(p.edges[0]?.cursor ?? null);
    expect(p.pageInfo.endCursor).toBe(p.edges.at(-1)?.cursor ?? null);
    if (!p.pageInfo.hasPreviousPage) return seen;
    before = `, before: "${p.pageInfo.startCursor}"`;
  }
  throw new Error('no first page');
}

/**
 * Backward paging from the end and from every cursor gives the forward pages' rows; `after` with
 * `before` bounds a window that first and last page from either end. Returns the forward list.
 */
export async function expectBackwardMirrorsForward(page: Page, size: number): Promise<string[]> {
  const forward = await forwardCursors(page, size);
  expect(await backwardCursors(page, size)).toEqual(forward);
  for (let k = 0; k < forward.length; k++) {
    const back = await page(`last: ${size}, before: "${forward[k]}"`);
    expect(cursors(back), `last ${size} before #${k}`).toEqual(forward.slice(Math.max(0, k - size), k));
    expect(back.pageInfo.hasPreviousPage, `before #${k}`).toBe(k > size);
    expect(back.pageInfo.hasNextPage).toBe(true);
  }
  if (forward.length >= 3) {
    const [a, b] = [forward[0]!, forward.at(-1)!];
    const inner = forward.slice(1, -1);
    const last = await page(`last: ${size}, after: "${a}", before: "${b}"`);
    expect(cursors(last)).toEqual(inner.slice(-size));
    expect(last.pageInfo.hasPreviousPage).toBe(inner.length > size);
    const first = await page(`first: ${size}, after: "${a}", before: "${b}"`);
    expect(cursors(first)).toEqual(inner.slice(0, size));
    expect(first.pageInfo).toMatchObject({ hasNextPage: inner.length > size, hasPreviousPage: true });
  }
  return forward;
}
