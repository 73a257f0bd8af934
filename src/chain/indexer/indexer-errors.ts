export class IndexerError extends Error {}
/** The chain moved while a batch was being read; nothing was written and the next tick retries. */
export class ChainMovedError extends IndexerError {}
