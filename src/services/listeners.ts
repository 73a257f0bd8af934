// Listeners of one kind of occurrence (a read fallback, a template outcome): whoever records it
// does not know who listens (metrics, the log, a test).
export function createListeners<A extends unknown[]>() {
  const listeners = new Set<(...args: A) => void>();
  return {
    emit(...args: A): void {
      for (const l of listeners) l(...args);
    },
    /** Calls `listener` at every occurrence; returns its removal. */
    on(listener: (...args: A) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
