// An EventTarget for yoga's pubsub that carries events between instances through Redis while
// Redis answers, and falls back to this process alone while it does not.
//
// Why not @graphql-yoga/redis-event-target as is: its dispatchEvent fires publish() and drops the
// promise, and addEventListener does the same with subscribe(). Once ioredis gives up on a
// command (maxRetriesPerRequest) those promises reject with nobody listening, and Node exits on
// the unhandled rejection: one Redis outage took every instance down within a second of its next
// order or new subscription. Its protocol (channel = topic, message = JSON of the detail, '' for
// undefined) is kept, so instances running either version still understand each other.
//
// Rule while degraded: an event is delivered either through Redis (both connections ready) or
// straight to this instance's listeners, not both, so a subscriber sees it once. (One edge: a
// PUBLISH whose connection breaks after Redis received it but before the reply is delivered
// locally as well, so local subscribers may see that one event twice.)
// Subscribers on other instances miss the events published during the outage; that is the
// documented degradation (docs/operations.md, "Deploying").
import type { Redis } from 'ioredis';

export interface EventTargetLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

type Listener = (event: CustomEvent) => void;
type ListenerArg = Listener | { handleEvent: Listener } | null | undefined;

export interface ResilientRedisEventTarget extends EventTarget {
  /** 'redis' while both connections are ready, else 'local' */
  mode(): 'redis' | 'local';
}

export function createResilientRedisEventTarget(args: {
  publishClient: Redis;
  subscribeClient: Redis;
  logger: EventTargetLogger;
}): ResilientRedisEventTarget {
  const { publishClient, subscribeClient, logger } = args;
  const listeners = new Map<string, Set<Listener>>();
  let degraded = false;

  const ready = () => publishClient.status === 'ready' && subscribeClient.status === 'ready';

  function deliverLocally(topic: string, payload: string) {
    const callbacks = listeners.get(topic);
    if (!callbacks) return;
    // The same JSON round trip as through Redis: listeners get equal values either way.
    const event = new CustomEvent(topic, { detail: payload === '' ? null : JSON.parse(payload) });
    for (const cb of [...callbacks]) cb(event);
  }

  function enterDegraded(err: unknown) {
    if (degraded) return;
    degraded = true;
    logger.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'Redis unreachable: live events reach only the subscribers of this instance until it is back',
    );
  }

  function onReady() {
    if (!ready()) return;
    // ioredis re-subscribes what it knew of, but a SUBSCRIBE that failed during the outage is
    // not in its list: subscribe every topic this instance listens to again (idempotent).
    const topics = [...listeners.keys()];
    if (topics.length) subscribeClient.subscribe(...topics).catch((err) => enterDegraded(err));
    if (degraded) {
      degraded = false;
      logger.info({}, 'Redis reachable again: live events cross instances again');
    }
  }
  publishClient.on('ready', onReady);
  subscribeClient.on('ready', onReady);
  // Without 'error' listeners ioredis prints every failed reconnection attempt to stderr.
  const onError = (err: Error) => enterDegraded(err);
  publishClient.on('error', onError);
  subscribeClient.on('error', onError);
  for (const c of [publishClient, subscribeClient]) c.on('end', () => enterDegraded(new Error('connection closed')));

  subscribeClient.on('message', (channel: string, message: string) => deliverLocally(channel, message));

  const bound = new WeakMap<object, Listener>();
  const callbackOf = (arg: ListenerArg): Listener | undefined => {
    if (arg == null || typeof arg === 'function') return arg ?? undefined;
    let cb = bound.get(arg);
    if (!cb) bound.set(arg, (cb = arg.handleEvent.bind(arg)));
    return cb;
  };

  return {
    mode: () => (ready() ? 'redis' : 'local'),
    addEventListener(topic: string, arg: ListenerArg) {
      const cb = callbackOf(arg);
      if (!cb) return;
      let set = listeners.get(topic);
      if (!set) {
        set = new Set();
        listeners.set(topic, set);
        // While Redis is down this fails (or waits in ioredis's queue and then fails); onReady
        // subscribes again once it is back.
        subscribeClient.subscribe(topic).catch((err) => enterDegraded(err));
      }
      set.add(cb);
    },
    removeEventListener(topic: string, arg: ListenerArg) {
      const set = listeners.get(topic);
      const cb = callbackOf(arg);
      if (!set || !cb) return;
      set.delete(cb);
      if (set.size > 0) return;
      listeners.delete(topic);
      subscribeClient.unsubscribe(topic).catch(() => {});
    },
    dispatchEvent(event: Event) {
      const detail = (event as CustomEvent).detail;
      const payload = detail === undefined ? '' : JSON.stringify(detail);
      if (!ready()) {
        enterDegraded(new Error(`Redis connection ${publishClient.status}/${subscribeClient.status}`));
        deliverLocally(event.type, payload);
        return true;
      }
      publishClient.publish(event.type, payload).catch((err) => {
        // Not delivered through Redis (the connection broke under us): deliver here instead.
        enterDegraded(err);
        deliverLocally(event.type, payload);
      });
      return true;
    },
  } as ResilientRedisEventTarget;
}
