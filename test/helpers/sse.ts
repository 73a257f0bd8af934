// A GraphQL subscription over Server-Sent Events through yoga.fetch, as a browser would open it.
import type { App } from '../../src/yoga.js';

export interface Subscription {
  next(timeoutMs?: number): Promise<any>;
  close(): void;
}

/** `yoga`: the app in this process, or the base URL of a running instance (http://127.0.0.1:port). */
export async function subscribe(yoga: App | string, query: string, variables: Record<string, unknown> = {}): Promise<Subscription> {
  const controller = new AbortController();
  const send = typeof yoga === 'string' ? (init: RequestInit) => fetch(`${yoga}/graphql`, init) : (init: RequestInit) => yoga.fetch('http://test/graphql', init);
  const res = await send({
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
