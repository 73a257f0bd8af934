// The event id a subscription's last payload carried, per operation context: the subscription's
// resolver notes it, and the transport (SSE `id:`, every result's `extensions.eventId`) reads it
// for the result of that same payload (src/http/event-ids-plugin.ts). A payload is resolved and
// delivered before the next one is pulled, so one slot per operation is enough.
const lastIds = new WeakMap<object, string>();

export function noteStreamedEvent(context: object, eventId: string): void {
  lastIds.set(context, eventId);
}

/** The id noted for this operation's current payload, once. */
export function takeStreamedEvent(context: object): string | undefined {
  const id = lastIds.get(context);
  lastIds.delete(context);
  return id;
}
