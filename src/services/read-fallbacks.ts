// Why the read engine handed a request back to the resolvers. A fallback is correct (the
// resolvers answer the same bytes) but slower and several statements, and a database error in
// the engine's one statement is a defect or an outage: counted by cause in /metrics
// (read_engine_fallbacks_total) and, for database errors, logged by the HTTP layer.
import { createListeners } from './listeners.js';

export const READ_FALLBACK_CAUSES = ['database-error', 'unrenderable', 'replica-behind', 'island-failed'] as const;
export type ReadFallbackCause = (typeof READ_FALLBACK_CAUSES)[number];

export function createReadFallbacks() {
  const listeners = createListeners<[cause: ReadFallbackCause, error?: unknown]>();
  return { record: listeners.emit, onFallback: listeners.on };
}

export type ReadFallbacks = ReturnType<typeof createReadFallbacks>;
