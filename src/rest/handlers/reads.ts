// The single-value v1 read routes, each one GraphQL document.
import type { Context } from '../../context.js';
import { RestCollectionDocument, RestCollectionStatsDocument, RestListingRewardsDocument, RestNonceDocument } from '../documents.js';
import { ok, type RestReply } from '../envelope.js';
import { runDocument } from '../execute.js';
import type { Query } from '../query-string.js';
import { requireAddressParam } from './address-param.js';

export async function getNonce(query: Query, ctx: Context): Promise<RestReply> {
  const data = await runDocument(RestNonceDocument, { address: requireAddressParam(query) }, ctx);
  return ok(data.nonce);
}

export async function getCollection(query: Query, ctx: Context): Promise<RestReply> {
  const data = await runDocument(RestCollectionDocument, { address: requireAddressParam(query) }, ctx);
  return ok(data.collection);
}

export async function getCollectionStats(query: Query, ctx: Context): Promise<RestReply> {
  const data = await runDocument(RestCollectionStatsDocument, { address: requireAddressParam(query) }, ctx);
  return ok(data.collectionStats);
}

export async function getListingRewards(_query: Query, ctx: Context): Promise<RestReply> {
  const data = await runDocument(RestListingRewardsDocument, {}, ctx);
  return ok(data.listingRewards);
}
