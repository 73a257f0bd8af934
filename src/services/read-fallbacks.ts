// Why the read engine handed a request back to the resolvers. A fallback is correct (the
// resolvers answer the same bytes) but slower and several statements, and a database error in
// the engine's one statement is a defect or an outage: counted by cause in /metrics
// (read_engine_fallbacks_total) and, for database errors, logged by the HTTP layer.
export const READ_FALLBACK_CAUSES = ['database-error', 'unrenderable', 'replica-behind', 'island-failed'] as const;
export type ReadFallbackCause = (typeof READ_FALLBACK_CAUSES)[number];

type Listener = (cause: ReadFallbackCause, error?: unknown) => void;

export function createReadFallbacks() {
  const listeners = new Set<Listener>();
  return {
    record(cause: ReadFallbackCause, error?: unknown): void {
      for (const l of listeners) l(cause, error);
    },
    /** Calls `listener` at every fallback; returns its removal. */
    onFallback(listener: Listener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type ReadFallbacks = ReturnType<typeof createReadFallbacks>;
