// An SSE client that keeps what a resuming client needs: each event's `id:` and data, and
// whether the server completed the stream. Over yoga.fetch (in process) or a base URL.
import type { App } from '../../src/yoga.js';

export interface SseEvent {
  id: string | null;
  event: string | null;
  data: any;
}

export interface SseStream {
  status: number;
  /** the next `next` event; throws on timeout or when the stream ended first */
  next(timeoutMs?: number): Promise<SseEvent>;
  /** resolves when the server ended the stream (`event: complete` or the body closed) */
  ended(timeoutMs?: number): Promise<void>;
  /** the body as JSON when the answer was not a stream (an error) */
  json(): Promise<any>;
  close(): void;
}

export async function openSse(target: App | string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<SseStream> {
  const controller = new AbortController();
  const init: RequestInit = {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ query, variables }),
    signal: controller.signal,
  };
  const res = typeof target === 'string' ? await fetch(`${target}/graphql`, init) : await target.fetch('http://test/graphql', init);
  const streaming = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let done = false;
  const queue: SseEvent[] = [];
  let pumping: Promise<void> | null = null;
  const pump = () =>
    (pumping ??= (async () => {
      const r = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (r.done) {
        done = true;
        return;
      }
      buffer += r.value;
      let i;
      while ((i = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        const ev: SseEvent = { id: null, event: null, data: null };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('id:')) ev.id = line.slice(3).trim();
          else if (line.startsWith('event:')) ev.event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).trim());
        }
        if (ev.event === 'complete') done = true;
        else if (data.join('')) queue.push({ ...ev, data: JSON.parse(data.join('')) });
      }
    })().finally(() => (pumping = null)));
  const waitFor = async (ready: () => boolean, timeoutMs: number, what: string) => {
    const deadline = Date.now() + timeoutMs;
    while (!ready()) {
      if (done) throw new Error(`stream ended before ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} before the timeout`);
      await Promise.race([pump(), new Promise((r) => setTimeout(r, left))]);
    }
  };
  return {
    status: res.status,
    async next(timeoutMs = 10_000) {
      await waitFor(() => queue.length > 0, timeoutMs, 'event');
      return queue.shift()!;
    },
    async ended(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('the stream did not end before the timeout');
        await Promise.race([pump(), new Promise((r) => setTimeout(r, left))]);
      }
    },
    async json() {
      if (streaming) throw new Error('the answer is a stream');
      let text = '';
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        text += r.value;
      }
      return JSON.parse(text);
    },
    close() {
      controller.abort();
      reader.cancel().catch(() => {});
    },
  };
}
