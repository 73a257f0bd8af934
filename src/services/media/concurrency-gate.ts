// At most `limit` tasks at once, the others waiting in arrival order. Encoding is CPU work on
// libuv's threads: a grid of fifty new token images asks for fifty encodes in one moment, and
// running them all at once only makes every one of them slower and holds fifty decoded images in
// memory at the same time.
export interface ConcurrencyGate {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** tasks running and waiting */
  load(): { running: number; waiting: number };
}

export function createConcurrencyGate(limit: number): ConcurrencyGate {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    running--;
    const next = waiting.shift();
    if (next) {
      running++;
      next();
    }
  };
  return {
    async run(task) {
      if (running < limit) running++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
    load: () => ({ running, waiting: waiting.length }),
  };
}
