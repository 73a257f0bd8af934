// The query log of a Prisma client (tests count statements with it), for both backends.
import type { PrismaClient } from '../generated/prisma/client.js';

export function attachQueryLog(prisma: PrismaClient, onQuery?: (sql: string) => void) {
  if (!onQuery) return;
  (prisma as unknown as { $on(e: 'query', cb: (ev: { query: string }) => void): void }).$on('query', (ev) =>
    onQuery(ev.query),
  );
}

export function clientOptions(onQuery?: (sql: string) => void) {
  return onQuery ? { log: [{ emit: 'event' as const, level: 'query' as const }] } : {};
}
