// Types of scripts/ensure-dist-current.mjs (plain JavaScript: `npm start` runs it before any build).
export function distStaleReason(): string | null;
export function ensureDistCurrent(): Promise<{ why: string; ms: number } | null>;
