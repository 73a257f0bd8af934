/** One statement as sent: its text (of the Parse or Query message), parameter type oids (0: unspecified) and values as bound (text; binary as \x hex). */
export interface WireStatement {
  text: string;
  types: number[];
  values: (string | null)[];
  /** the prepared statement's name, when it had one */
  name?: string;
  /** the `options` of its connection's StartupMessage (`-c plan_cache_mode=force_generic_plan ...`), when it set any */
  options?: string;
}

export interface WireCounter {
  count: number;
  /** records every statement sent from now on (forgets an earlier capture) */
  startCapture(): void;
  /** stops recording; the statements since startCapture */
  stopCapture(): WireStatement[];
}

/** Starts counting the SQL statements this process sends to PostgreSQL at `port`; returns the live counter. */
export function countPgStatementsOnTheWire(port?: number): WireCounter;

/** Answers a parent's {capture: 'start' | 'stop'} over IPC; true when the message was one. */
export function answerCapture(counter: WireCounter, m: unknown): boolean;
