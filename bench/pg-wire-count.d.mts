/** Starts counting the SQL statements this process sends to PostgreSQL at `port`; returns the live counter. */
export function countPgStatementsOnTheWire(port?: number): { count: number };
