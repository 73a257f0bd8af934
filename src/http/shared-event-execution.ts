// A log subscription's selection executed once per event and distinct request, not once per
// subscriber. The instance's tail reader hands each event to every stream as one payload object
// (src/services/market-event-tail.ts); with 1,000 SSE subscribers on a few distinct queries the
// executor ran the same selection on that object 1,000 times, most of the server's CPU per event
// (docs/performance.md, "SSE"). Here the result is kept on the payload (a WeakMap: it lives while
// some stream still holds the event) under a key of everything else the execution reads: the
// document, the operation, the variables, and the headers the guards read
// (src/services/api-key-guards.ts), so a field behind a key is never answered from another
// caller's execution. What stays per subscriber: its source stream (cursor, filter) and writing
// the result.
import {
  createSourceEventStream,
  type DocumentNode,
  execute,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  getOperationAST,
  type GraphQLField,
  Kind,
  type SelectionNode,
} from 'graphql';
import { isAsyncIterable, mapAsyncIterator } from 'graphql-yoga';
import type { EventIdOf } from '../events/streamed-event-ids.js';

type MaybePromise<T> = T | Promise<T>;

/** the request headers that decide what a guarded field answers */
const GUARD_HEADERS = ['x-api-key', 'x-looks-api-key'];

const documentIds = new WeakMap<object, number>();
let documentCount = 0;
const executions = new WeakMap<object, Map<string, MaybePromise<ExecutionResult>>>();

function requestKey(args: ExecutionArgs): string {
  let doc = documentIds.get(args.document);
  if (doc === undefined) documentIds.set(args.document, (doc = documentCount++));
  const headers = (args.contextValue as { headers?: Headers } | undefined)?.headers;
  return JSON.stringify([doc, args.operationName ?? null, args.variableValues ?? null, GUARD_HEADERS.map((h) => headers?.get(h) ?? null)]);
}

/** The first field of a selection set, looking into fragments. */
function firstField(selections: readonly SelectionNode[], document: DocumentNode): FieldNode | undefined {
  for (const s of selections) {
    if (s.kind === Kind.FIELD) return s;
    const inner =
      s.kind === Kind.INLINE_FRAGMENT
        ? s.selectionSet.selections
        : document.definitions.find((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === s.name.value)?.selectionSet.selections;
    const found = inner && firstField(inner, document);
    if (found) return found;
  }
  return undefined;
}

/** A subscription operation's root field (validation leaves it exactly one). */
export function subscriptionRootField(args: ExecutionArgs): GraphQLField<unknown, unknown> | undefined {
  const operation = getOperationAST(args.document, args.operationName);
  if (operation?.operation !== 'subscription') return undefined;
  const field = firstField(operation.selectionSet.selections, args.document);
  return field && args.schema.getSubscriptionType()?.getFields()[field.name.value];
}

/**
 * A result that rendered carries its event's id; one with errors does not: a client resumes
 * from the last id it received, so an id on a failed event would skip that event for good.
 */
function withEventId(result: ExecutionResult, eventId: string): ExecutionResult {
  return result.errors?.length ? result : { ...result, extensions: { ...result.extensions, eventId } };
}

/**
 * Ends the stream after a result with errors (a field of the event failed: a database error, a
 * timeout): the client reconnects from the last event it received whole and the event is read
 * and rendered again, instead of the stream going on past it.
 */
function endingAfterError(it: AsyncIterator<ExecutionResult>): AsyncIterableIterator<ExecutionResult> {
  let ended = false;
  const done = { done: true, value: undefined } as IteratorReturnResult<undefined>;
  return {
    async next() {
      if (ended) return done;
      const r = await it.next();
      if (!r.done && r.value.errors?.length) {
        ended = true;
        void it.return?.();
      }
      return r;
    },
    async return() {
      ended = true;
      await it.return?.();
      return done;
    },
    throw: (e?: unknown) => it.throw?.(e) ?? Promise.reject(e),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

function executeShared(args: ExecutionArgs, key: string, payload: unknown, idOf: EventIdOf): MaybePromise<ExecutionResult> {
  const run = () => {
    const result = execute({ ...args, rootValue: payload });
    const eventId = idOf(payload);
    return result instanceof Promise ? result.then((r) => withEventId(r, eventId)) : withEventId(result, eventId);
  };
  if (typeof payload !== 'object' || payload === null) return run();
  let byKey = executions.get(payload);
  if (!byKey) executions.set(payload, (byKey = new Map()));
  let result = byKey.get(key);
  if (!result) byKey.set(key, (result = run()));
  return result;
}

/**
 * Subscribes like the executor (each payload executed with the payload as root value), sharing
 * each payload's execution with every other subscriber of the same request, and putting the
 * payload's event id in `extensions.eventId`. Results are shared objects: never mutate them.
 * When the stream does not open (bad variables, a refused cursor), `subscribe` answers, so the
 * errors read as for any other subscription.
 */
export async function subscribeSharingExecution(
  args: ExecutionArgs,
  idOf: EventIdOf,
  subscribe: (args: ExecutionArgs) => unknown,
): Promise<unknown> {
  const source = await createSourceEventStream(args).catch(() => null);
  if (!source || !isAsyncIterable(source)) return subscribe(args);
  const key = requestKey(args);
  return endingAfterError(mapAsyncIterator(source, (payload) => executeShared(args, key, payload, idOf)) as AsyncIterator<ExecutionResult>);
}
