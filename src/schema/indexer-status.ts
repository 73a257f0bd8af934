// indexerStatus: how far the chain indexer is behind the chain head.
import type { IndexerStatus as IndexerStatusShape } from '../services/indexer-status.js';
import { builder } from './builder.js';

const IndexerStatus = builder.objectRef<IndexerStatusShape>('IndexerStatus').implement({
  description: 'Where the chain indexer is. Block numbers and times are null when not known yet (no RPC, nothing indexed).',
  fields: (t) => ({
    chainId: t.exposeInt('chainId'),
    headBlock: t.exposeInt('headBlock', { nullable: true, description: "the node's latest block" }),
    headTimestamp: t.expose('headTimestamp', { type: 'UnixTime', nullable: true }),
    indexedBlock: t.exposeInt('indexedBlock', { nullable: true, description: 'the last block whose effects the API shows' }),
    indexedBlockTimestamp: t.expose('indexedBlockTimestamp', { type: 'UnixTime', nullable: true }),
    confirmations: t.exposeInt('confirmations', { description: 'blocks below the head the indexer leaves alone' }),
    lagBlocks: t.exposeInt('lagBlocks', { nullable: true, description: 'headBlock - indexedBlock' }),
    lagSeconds: t.exposeInt('lagSeconds', { nullable: true, description: 'head block time - indexed block time' }),
    lastEventBlock: t.exposeInt('lastEventBlock', { nullable: true, description: 'the block of the last chain event the indexer applied' }),
    lastEventTimestamp: t.expose('lastEventTimestamp', { type: 'UnixTime', nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'UnixTime', nullable: true, description: 'when the indexed block last moved' }),
    running: t.exposeBoolean('running', { description: 'this instance runs an indexer (active or standing by)' }),
    holdsLease: t.exposeBoolean('holdsLease', { description: 'this instance holds the indexer lease and is the one writing' }),
  }),
});

builder.queryFields((t) => ({
  indexerStatus: t.field({
    type: IndexerStatus,
    description: 'How far the chain indexer is behind the chain: poll it before trusting a status change to be visible.',
    resolve: (_root, _args, ctx) => ctx.services.indexer.indexerStatus(),
  }),
}));
