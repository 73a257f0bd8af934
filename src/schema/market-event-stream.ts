// Subscription.marketEvents: the market event log from a cursor, then live, without gaps or
// repeats (docs/activity.md, "Streaming and resuming"). Each result carries its event id in
// `extensions.eventId` and, over SSE, as the event's `id:`; a reconnect with Last-Event-ID (or
// `after`) resumes after it. The events are the activity's MarketEvent nodes.
import { forkContext } from '../context.js';
import { parseMarketEventStreamFilter, parseStreamCursor } from '../domain/market-event-stream.js';
import { STREAMED_EVENT_ID } from '../events/streamed-event-ids.js';
import type { MarketEventRow } from '../services/activity.js';
import { MarketEvent, MarketEventTypeEnum } from './activity.js';
import { builder } from './builder.js';

/**
 * The Last-Event-ID header. Looked up by hand as well: a request built in process from a plain
 * object (yoga.fetch) keeps the name's case, and its Headers then miss it by the lower-case name.
 */
function lastEventId(headers: Headers): string | null {
  const direct = headers.get('last-event-id');
  if (direct !== null) return direct;
  for (const [name, value] of headers) if (name.toLowerCase() === 'last-event-id') return value;
  return null;
}

export const MarketEventStreamFilterInput = builder.inputType('MarketEventStreamFilter', {
  fields: (t) => ({
    collection: t.field({ type: 'Address', required: false }),
    tokenId: t.field({ type: 'Uint256', required: false, description: 'with collection' }),
    types: t.field({
      type: [MarketEventTypeEnum],
      required: false,
      description: 'any of these; default: all, RETRACTED included. A retraction comes with the type of the event it retracts',
    }),
    account: t.field({ type: 'Address', required: false, description: 'as sender or receiver (the maker of an order)' }),
    minPrice: t.field({ type: 'Uint256', required: false, description: 'wei, inclusive; events without a price are left out' }),
    maxPrice: t.field({ type: 'Uint256', required: false, description: 'wei, inclusive; events without a price are left out' }),
    owner: t.field({
      type: 'Address',
      required: false,
      description: 'events on orders for tokens this address holds now (a collection offer: on a collection it holds a token of)',
    }),
  }),
});

builder.subscriptionFields((t) => ({
  marketEvents: t.field({
    type: MarketEvent,
    description:
      'The market event log after `after` (an eventId; "0": from the oldest event kept), then live; without `after`, from now on. ' +
      'Every event once, in the log\'s commit order, RETRACTED rows included. Over SSE each event has `id:` and a reconnect with ' +
      'Last-Event-ID resumes after it (the header wins over `after`). CURSOR_EXPIRED: retention deleted the cursor\'s event.',
    args: {
      after: t.arg({ type: 'ID', required: false, description: 'resume after this eventId' }),
      filter: t.arg({ type: MarketEventStreamFilterInput, required: false }),
    },
    subscribe: (_root, args, ctx) =>
      ctx.services.eventStream.open({
        after: parseStreamCursor(lastEventId(ctx.headers), 'Last-Event-ID') ?? parseStreamCursor(args.after?.toString(), 'after'),
        filter: parseMarketEventStreamFilter(args.filter),
      }),
    resolve: (e: MarketEventRow, _args, ctx) => {
      // One context serves the whole subscription, and DataLoaders cache for their context's
      // life: without fresh ones, `order { status }` would show a later event the status loaded
      // for an earlier one. A context executes one payload at a time (a stream asks for the next
      // once the last is written; a shared execution runs on the context of the stream that asked
      // first, src/http/shared-event-execution.ts), so swapping is safe.
      ctx.loaders = forkContext(ctx).loaders;
      return e;
    },
    // each result's extensions.eventId and SSE `id:` (src/http/event-ids-plugin.ts)
    extensions: { [STREAMED_EVENT_ID]: (e: MarketEventRow) => e.id },
  }),
}));
