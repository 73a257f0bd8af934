// Query.indexerStatus in SQL (src/read-engine/indexer-status-reads.ts) against its resolver, byte
// for byte: nothing known yet, a cursor row and a head, a head behind the indexed block, a head
// beyond GraphQL's Int; beside another root, one statement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_TYPES } from '../../src/read-engine/read-types.js';
import { answerVia } from '../helpers/engine-answer.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { backendName } from '../helpers/test-database.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

const FIELDS = Object.keys(READ_TYPES.IndexerStatus.fields);
const ALL = `{ indexerStatus { ${FIELDS.join(' ')} } orders(first: 1) { totalCount } }`;

async function same(query: string, label: string) {
  const engine = await answerVia(app, query, {}, true);
  expect(engine.text, label).toBe((await answerVia(app, query, {}, false)).text);
  return engine;
}
const status = (text: string) => JSON.parse(text.slice(4)).data.indexerStatus;

describe(`indexerStatus in SQL (${backendName})`, () => {
  it('equals the resolver byte for byte: nothing known, then a cursor row and a head, in one statement beside another root', async () => {
    const runtime = app.services.deps.indexerRuntime!;
    expect(status((await same(ALL, 'nothing known')).text)).toMatchObject({ headBlock: null, indexedBlock: null, lagBlocks: null, running: false });
    await app.db.sql.query(
      `INSERT INTO indexer_cursor (stream, chain_id, block_number, block_hash, block_timestamp, last_event_block, last_event_timestamp) VALUES ('main', $1, 1200, $2, 1790000000, 1190, 1789999900)`,
      [app.services.deps.network.chainId, '0x' + 'ab'.repeat(32)],
    );
    Object.assign(runtime, { running: true, holdsLease: true, headBlock: 1212, headTimestamp: 1790000144, headSeenAt: app.clock.now });
    const known = await same(ALL, 'a cursor row and a head');
    expect(status(known.text)).toMatchObject({ headBlock: 1212, indexedBlock: 1200, lagBlocks: 12, lagSeconds: 144, lastEventBlock: 1190, running: true, holdsLease: true });
    const own = known.statements.filter((st) => st.includes(`'{"`));
    expect(own).toHaveLength(1);
    expect(own[0]).toContain('indexer_cursor');
    // aliases, a fragment, __typename
    await same('{ s: indexerStatus { __typename lag: lagBlocks ...F } } fragment F on IndexerStatus { chainId updatedAt }', 'aliases and a fragment');
  });

  it('clamps a lag to 0 and refuses a block beyond Int as the resolver does', async () => {
    const runtime = app.services.deps.indexerRuntime!;
    // a head behind the indexed block (another node answered): the lag is 0
    Object.assign(runtime, { headBlock: 1100, headTimestamp: 1780000000, headSeenAt: app.clock.now });
    expect(status((await same(ALL, 'a head behind')).text)).toMatchObject({ lagBlocks: 0, lagSeconds: 0 });
    // beyond GraphQL's Int: both answer graphql-js's error
    Object.assign(runtime, { headBlock: 2 ** 31 });
    expect((await same(ALL, 'a head beyond Int')).text).toContain('"errors"');
  });
});
