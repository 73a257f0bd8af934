// The event id a subscription's payload carries, declared on the subscription field itself
// (`extensions: { [STREAMED_EVENT_ID]: (payload) => id }`): the transport reads it to put the id
// on every result (`extensions.eventId`, SSE `id:`), and knows from it that the field's payloads
// are log events, shared by every stream of the instance that delivers them
// (src/http/event-ids-plugin.ts).
import type { GraphQLField } from 'graphql';

export const STREAMED_EVENT_ID = 'streamedEventId';

export type EventIdOf = (payload: unknown) => string;

/** The field's event id reader, when its payloads are log events. */
export function eventIdOf(field: GraphQLField<unknown, unknown> | undefined): EventIdOf | undefined {
  const read = field?.extensions?.[STREAMED_EVENT_ID];
  return typeof read === 'function' ? (read as EventIdOf) : undefined;
}
