// A GraphQL subscription over Server-Sent Events through yoga.fetch, as a browser would open it.
import type { App } from '../../src/yoga.js';

export interface Subscription {
  next(timeoutMs?: number): Promise<any>;
  close(): void;
}

export async function subscribe(yoga: App, query: string, variables: Record<string, unknown> = {}): Promise<Subscription> {
  const controller = new AbortController();
  const res = await yoga.fetch('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query, variables }),
    signal: controller.signal,
  });
  if (res.status !== 200) throw new Error(`subscription answered ${res.status}: ${await res.text()}`);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const queue: any[] = [];
  async function pump(): Promise<void> {
    const { value, done } = await reader.read();
    if (done) throw new Error('stream ended');
    buffer += value;
    let i;
    while ((i = buffer.indexOf('\n\n')) >= 0) {
      const chunk = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      const data = chunk.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('');
      if (data) queue.push(JSON.parse(data));
    }
  }
  return {
    async next(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!queue.length) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('no event before the timeout');
        await Promise.race([pump(), new Promise((_, rej) => setTimeout(() => rej(new Error('no event before the timeout')), left))]);
      }
      return queue.shift();
    },
    close() {
      controller.abort();
      reader.cancel().catch(() => {});
    },
  };
}
