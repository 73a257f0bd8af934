// GET /api/v1/indexer/status: the indexerStatus query in the v1 envelope.
import type { Context } from '../../context.js';
import { ok, type RestReply } from '../envelope.js';
import { runDocument } from '../execute.js';
import { RestIndexerStatusDocument } from '../indexer-documents.js';
import type { Query } from '../query-string.js';

export async function getIndexerStatus(_query: Query, ctx: Context): Promise<RestReply> {
  const data = await runDocument(RestIndexerStatusDocument, {}, ctx);
  return ok(data.indexerStatus);
}
