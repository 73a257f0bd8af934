// Live events (the original API had none): order lifecycle and sales, published by order
// submission and the chain indexer, delivered to GraphQL subscriptions over Server-Sent Events.
// With REDIS_URL set, graphql-yoga's Redis event target carries every event to the subscribers
// of every instance; without it, delivery stays in this process. While Redis is unreachable the
// bus keeps working inside this process and says so in the log (resilient-redis-event-target.ts).
import { createPubSub } from 'graphql-yoga';
import { createRedisClient } from '../redis-client.js';
import { createResilientRedisEventTarget, type EventTargetLogger } from './resilient-redis-event-target.js';

/** JSON-safe on purpose: events cross Redis as JSON (uint256 values are decimal strings). */
export interface OrderEvent {
  kind: 'CREATED' | 'STATUS_CHANGED' | 'EXECUTED';
  hash: string;
  collection: string;
  signer: string;
  isOrderAsk: boolean;
  /** null for CREATED */
  oldStatus: string | null;
  newStatus: string;
  /** ISO time the service saw the change */
  at: string;
  /** the block of the chain event behind the change, when there is one */
  blockNumber: number | null;
}

export interface SaleEvent {
  collection: string;
  tokenId: string;
  amount: string;
  price: string;
  currency: string;
  buyer: string;
  seller: string;
  orderHash: string | null;
  txHash: string;
  logIndex: number;
  blockNumber: number;
  timestamp: string;
}

/** Something was appended to the market event log: readers of the log read on (the log is the truth, this only wakes them). */
export interface LogAppended {
  at: string;
}

export type Topics = {
  'order-events': [OrderEvent];
  sales: [SaleEvent];
  'market-log': [LogAppended];
};

export interface EventBus {
  publishOrderEvent(e: OrderEvent): void;
  publishSale(e: SaleEvent): void;
  publishLogAppended(e: LogAppended): void;
  subscribe<K extends keyof Topics>(topic: K): AsyncIterable<Topics[K][0]>;
  /** 'redis' or 'memory' */
  transport: string;
  /** where an event published now goes: 'redis' (every instance) or 'local' (this process only) */
  delivery(): 'redis' | 'local';
  /** ends every open subscription (their SSE streams complete): the polite part of a shutdown */
  endSubscriptions(): Promise<void>;
  close(): Promise<void>;
}

const silent: EventTargetLogger = { warn: () => {}, info: () => {} };

export function createEventBus(opts: { redisUrl?: string; channelPrefix?: string; logger?: EventTargetLogger } = {}): EventBus {
  let close = async () => {};
  let eventTarget;
  let delivery = (): 'redis' | 'local' => 'local';
  if (opts.redisUrl) {
    // One connection publishes; a subscribed Redis connection cannot issue other commands.
    // No offline queue for publishing: an event is delivered locally at once rather than held
    // for a Redis that may not come back. ioredis keeps reconnecting in the background.
    const publishClient = createRedisClient(opts.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    const subscribeClient = createRedisClient(opts.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 });
    const target = createResilientRedisEventTarget({ publishClient, subscribeClient, logger: opts.logger ?? silent });
    eventTarget = target;
    delivery = target.mode;
    close = async () => {
      publishClient.disconnect();
      subscribeClient.disconnect();
    };
  }
  const prefix = opts.channelPrefix ?? 'marketplace';
  const pubsub = createPubSub<Record<string, [unknown]>>(eventTarget ? { eventTarget } : {});
  const open = new Set<AsyncIterator<unknown>>();
  const endSubscriptions = async () => {
    await Promise.allSettled([...open].map((it) => it.return?.()));
    open.clear();
  };
  return {
    transport: opts.redisUrl ? 'redis' : 'memory',
    delivery: () => delivery(),
    publishOrderEvent: (e) => pubsub.publish(`${prefix}:order-events`, e),
    publishSale: (e) => pubsub.publish(`${prefix}:sales`, e),
    publishLogAppended: (e) => pubsub.publish(`${prefix}:market-log`, e),
    subscribe: (topic) => eager(pubsub.subscribe(`${prefix}:${topic}`) as AsyncIterable<never>, open),
    endSubscriptions,
    close: async () => {
      await endSubscriptions();
      await close();
    },
  };
}

/**
 * yoga's pubsub hands out a lazy Repeater: its listener is attached on the first next(), i.e.
 * when the SSE stream is first pulled. An event published between "subscription accepted" and
 * that first pull would be lost. Asking for the first value at once attaches the listener now.
 */
function eager<T>(source: AsyncIterable<T>, open: Set<AsyncIterator<unknown>>): AsyncIterable<T> {
  const it = source[Symbol.asyncIterator]();
  open.add(it);
  let first: Promise<IteratorResult<T>> | null = it.next();
  first.catch(() => {});
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        const p = first ?? it.next();
        first = null;
        return p;
      },
      return: (value?: unknown) => {
        open.delete(it);
        return it.return?.(value) ?? Promise.resolve({ done: true as const, value: value as T });
      },
      throw: (err?: unknown) => it.throw?.(err) ?? Promise.reject(err),
    }),
  };
}
