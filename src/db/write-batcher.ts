// Groups concurrent writes into batches: what arrives while earlier batches are in flight waits
// and leaves as one batch as soon as a slot frees ("natural" batching: no timer, so a lone write
// leaves at once, and under load the batches grow with the load). Built on DataLoader (already
// the project's batching library), whose batchScheduleFn decides when a batch is dispatched.
// The order submission sends its inserts this way (src/db/submit-orders-sql.ts): one statement,
// one transaction and one commit for many orders.
import DataLoader from 'dataloader';

export interface WriteBatcherOptions {
  /** batches in flight at once (one keeps the database busy while Node prepares the next) */
  maxInFlight: number;
  /** the most items one batch carries */
  maxBatch: number;
}

export interface WriteBatcher<I, O> {
  /** resolves with this item's result, or rejects with its own Error */
  add(item: I): Promise<O>;
}

/** `run` returns one result (or Error) per item, in item order. */
export function createWriteBatcher<I, O>(run: (items: readonly I[]) => Promise<(O | Error)[]>, opts: WriteBatcherOptions): WriteBatcher<I, O> {
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    inFlight--;
    waiting.shift()?.();
  };
  const loader = new DataLoader<I, O>(
    async (items) => {
      try {
        return await run(items);
      } finally {
        release();
      }
    },
    {
      cache: false,
      maxBatchSize: opts.maxBatch,
      batchScheduleFn: (dispatch) => {
        // setImmediate lets the writes of requests already read in this turn of the loop join.
        if (inFlight < opts.maxInFlight) {
          inFlight++;
          setImmediate(dispatch);
        } else
          waiting.push(() => {
            inFlight++;
            dispatch();
          });
      },
    },
  );
  return { add: (item) => loader.load(item) };
}
