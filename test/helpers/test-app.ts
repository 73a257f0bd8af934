// The whole application over a test database, called through yoga.fetch (no port), with a
// pinned clock and helpers for GraphQL and REST requests.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print, type ExecutionResult } from 'graphql';
import { boot, type Running } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { openTestDatabase, type TestDatabase } from './test-database.js';

export const FIXED_NOW = new Date('2026-06-01T12:00:00.000Z');

export interface TestApp extends Running {
  testDb: TestDatabase;
  config: Config;
  clock: { now: Date };
  gql<TData = Record<string, unknown>, TVars = Record<string, unknown>>(
    query: string | TypedDocumentNode<TData, TVars>,
    variables?: TVars,
    headers?: Record<string, string>,
  ): Promise<ExecutionResult<TData> & { status: number }>;
  rest(path: string, init?: RequestInit): Promise<{ status: number; body: any; headers: Headers }>;
}

export async function startTestApp(env: Record<string, string> = {}, opts: { now?: Date } = {}): Promise<TestApp> {
  const testDb = await openTestDatabase();
  // The webhook sender polls the event log on a timer: its statements would land in the log of
  // what a request sent (statement-count tests). Tests that deliver drive a sender themselves. The
  // metadata worker likewise (it runs only with RPC_URL): METADATA=true turns it on; and the media
  // worker: MEDIA=true. The trait floor pass writes events on its timer: tests run it themselves.
  const config = loadConfig({ SEED: '0', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent', WEBHOOKS: 'false', METADATA: 'false', MEDIA: 'false', TRAIT_FLOOR_EVENTS_MS: '0', ...env });
  const clock = { now: opts.now ?? FIXED_NOW };
  const running = await boot(config, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), { db: testDb.db, indexer: env.INDEXER === 'on', now: () => clock.now });
  return {
    ...running,
    testDb,
    config,
    clock,
    close: async () => {
      await running.close(); // indexer, worker pool, event bus (the database is testDb's)
      await testDb.close();
    },
    async gql(query, variables, headers = {}) {
      const res = await running.yoga.fetch('http://test/graphql', {
        method: 'POST',
        // what current clients send (Apollo Client, graphql-http): a request GraphQL refuses before
        // executing it answers 4xx under this media type, 200 under application/json alone
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json;q=0.9', ...headers },
        body: JSON.stringify({ query: typeof query === 'string' ? query : print(query), variables }),
      });
      return { ...((await res.json()) as ExecutionResult<any>), status: res.status };
    },
    async rest(path, init) {
      const res = await running.yoga.fetch(`http://test${path}`, init ?? {});
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      return { status: res.status, body, headers: res.headers };
    },
  };
}
