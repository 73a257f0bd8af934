// The GraphQL schema: each import registers its types on the builder.
import { printSchema, lexicographicSortSchema } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import './order.js';
import './order-fillability.js';
import './collection-stats.js';
import './collection.js';
import './listing-rewards.js';
import './market-data.js';
import './nonce.js';
import './indexer-status.js';
import './order-submission.js';
import './fulfillment.js';
import './subscriptions.js';
import './discovery.js';
import './collection-search.js';
import './activity.js';
import './market-event-stream.js';
import './collection-market.js';
import './token.js';
import './trait.js';
import './account.js';
import './depth.js';
import './webhook.js';
import './node.js';

export const schema = builder.toSchema();

/** The SDL committed as schema.graphql (sorted so the file diffs cleanly). */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
