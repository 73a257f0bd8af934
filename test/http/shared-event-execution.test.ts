// A log subscription's events executed once per event and distinct request: subscribers of the
// same request share one execution (and see the same result the executor gives each of them
// alone), while a different document, variables or guard header gets an execution of its own.
import { GraphQLID, GraphQLInt, GraphQLObjectType, GraphQLSchema, GraphQLString, parse, subscribe, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { Repeater } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { subscribeSharingExecution, subscriptionRootField } from '../../src/http/shared-event-execution.js';
import { eventIdOf, STREAMED_EVENT_ID } from '../../src/events/streamed-event-ids.js';

interface Payload {
  id: string;
  price: number;
}

function schemaWith(payloads: () => AsyncIterable<Payload>) {
  const calls = { price: 0 };
  const Event = new GraphQLObjectType<Payload>({
    name: 'Event',
    fields: {
      eventId: { type: GraphQLID, resolve: (e) => e.id },
      price: {
        type: GraphQLInt,
        args: { times: { type: GraphQLInt } },
        resolve: (e, args: { times?: number }) => {
          calls.price++;
          return e.price * (args.times ?? 1);
        },
      },
      note: { type: GraphQLString, resolve: () => null },
    },
  });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        events: { type: Event, args: { from: { type: GraphQLID } }, subscribe: payloads, resolve: (e) => e, extensions: { [STREAMED_EVENT_ID]: (e: Payload) => e.id } },
      },
    }),
  });
  return { schema, calls };
}

const SAME = parse('subscription($from: ID, $t: Int) { events(from: $from) { eventId price(times: $t) note } }');

async function take(iterable: unknown, n: number): Promise<ExecutionResult[]> {
  const it = (iterable as AsyncIterable<ExecutionResult>)[Symbol.asyncIterator]();
  const out: ExecutionResult[] = [];
  for (let i = 0; i < n; i++) out.push((await it.next()).value);
  await it.return?.();
  return out;
}

describe('subscribeSharingExecution', () => {
  // the tail hands every stream the same payload objects
  const events: Payload[] = [
    { id: '1', price: 10 },
    { id: '2', price: 20 },
  ];
  const stream = () => new Repeater<Payload>(async (push, stop) => {
    for (const e of events) await push(e);
    await stop;
  });

  it('runs one execution per event for subscribers of the same request, with the result the executor gives each alone', async () => {
    const { schema, calls } = schemaWith(stream);
    const args = (headers: Record<string, string> = {}): ExecutionArgs => ({ schema, document: SAME, variableValues: { t: 2 }, contextValue: { headers: new Headers(headers) } });
    const idOf = eventIdOf(subscriptionRootField(args()))!;
    const shared = await Promise.all([1, 2, 3].map(() => subscribeSharingExecution(args(), idOf, subscribe as never).then((s) => take(s, 2))));
    expect(calls.price).toBe(2);
    const alone = await take(await subscribe(args()), 2);
    for (const got of shared) expect(got).toEqual(alone.map((r, i) => ({ ...r, extensions: { eventId: events[i]!.id } })));
    expect(JSON.stringify(shared[0])).toBe('[{"data":{"events":{"eventId":"1","price":20,"note":null}},"extensions":{"eventId":"1"}},{"data":{"events":{"eventId":"2","price":40,"note":null}},"extensions":{"eventId":"2"}}]');
  });

  it('executes apart for other variables, another document and another guard header', async () => {
    const { schema, calls } = schemaWith(stream);
    const run = (document: typeof SAME, variableValues: Record<string, unknown>, headers: Record<string, string> = {}) =>
      subscribeSharingExecution({ schema, document, variableValues, contextValue: { headers: new Headers(headers) } }, (e) => (e as Payload).id, subscribe as never).then((s) => take(s, 2));
    const [a, b, c, d] = await Promise.all([
      run(SAME, { t: 1 }),
      run(SAME, { t: 3 }),
      run(parse('subscription { events { price } }'), {}),
      run(SAME, { t: 1 }, { 'x-api-key': 'k' }),
    ]);
    expect(calls.price).toBe(8);
    expect([a, b, c, d].map((r) => (r[1]!.data as { events: { price: number } }).events.price)).toEqual([20, 60, 20, 20]);
  });

  it('finds the root field named in a fragment, so its results carry event ids too', async () => {
    const { schema } = schemaWith(stream);
    const field = (source: string) => subscriptionRootField({ schema, document: parse(source) })?.name;
    expect(field('subscription { ...F } fragment F on Subscription { events { price } }')).toBe('events');
    expect(field('subscription { ... on Subscription { events { price } } }')).toBe('events');
    expect(field('query { ok }')).toBeUndefined();
  });

  it('ends the stream after an event that failed to render, and gives that event no id, so a client resumes before it', async () => {
    const failing = new Set(['2']);
    const { schema } = schemaWith(() =>
      new Repeater<Payload>(async (push, stop) => {
        for (const e of [...events, { id: '3', price: 30 }]) await push(e);
        await stop;
      }),
    );
    const broken = new GraphQLSchema({
      ...schema.toConfig(),
    });
    const price = (broken.getType('Event') as GraphQLObjectType).getFields().price!;
    const resolve = price.resolve!;
    price.resolve = (e, a, c, i) => {
      if (failing.has((e as Payload).id)) throw new Error('database unavailable');
      return resolve(e, a, c, i);
    };
    const args: ExecutionArgs = { schema: broken, document: SAME, contextValue: { headers: new Headers() } };
    const it = ((await subscribeSharingExecution(args, (e) => (e as Payload).id, subscribe as never)) as AsyncIterable<ExecutionResult>)[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.value.extensions).toEqual({ eventId: '1' });
    const second = await it.next();
    expect(second.value.errors?.[0]?.message).toBe('database unavailable');
    expect(second.value.extensions?.eventId).toBeUndefined();
    // event 3 is not sent past the failed one: the stream is over
    expect((await it.next()).done).toBe(true);
  });

  it('leaves errors to the executor when the stream does not open', async () => {
    const { schema } = schemaWith(() => {
      throw new Error('refused');
    });
    const args: ExecutionArgs = { schema, document: SAME, contextValue: {} };
    const answer = (await subscribeSharingExecution(args, () => '', () => ({ errors: ['from the executor'] }))) as ExecutionResult;
    expect(answer.errors).toEqual(['from the executor']);
  });
});
