// What an open database is and how one is opened: the types both openers share (database.ts for
// PostgreSQL and the choice between the two, pglite-database.ts for the embedded one).
import type { PrismaClient } from '../generated/prisma/client.js';
import type { SqlRunner } from './sql-runner.js';

export type DatabaseKind = 'postgres' | 'pglite';

export interface Database {
  kind: DatabaseKind;
  prisma: PrismaClient;
  sql: SqlRunner;
  /** a short description for logs (never the password) */
  describe: string;
  /**
   * Set while the database is still opening (an embedded restart's thread, open-database-early.ts):
   * resolves when it answers, rejects if it cannot open. Statements sent before wait for it.
   */
  ready?: Promise<void>;
  /** connections of the PostgreSQL pool (metrics); absent for the embedded database (one session) */
  poolStats?: () => { total: number; idle: number; waiting: number; max: number };
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  databaseUrl?: string;
  /** folder for the embedded database, or 'memory' */
  dataDir?: string;
  poolSize?: number;
  /** called with every SQL statement sent, through Prisma or the SQL runner (tests count them) */
  onQuery?: (sql: string) => void;
  /** PostgreSQL only (PGlite runs in-process: nothing between it and us can hang) */
  timeouts?: Partial<DatabaseTimeouts>;
}

/** How long PostgreSQL may keep a request waiting (0 = no limit). */
export interface DatabaseTimeouts {
  /** to get a pooled connection, opening one included */
  connectMs: number;
  /** per statement: the server cancels it (statement_timeout), and the client gives up
   * 1 s later if the server does not answer at all (a hung server or network) */
  statementMs: number;
  /** a transaction left idle this long is ended by the server, releasing its locks */
  idleInTransactionMs: number;
  /** per statement on dedicated sessions (the indexer's batches; migrations set none: SessionOptions) */
  sessionMs: number;
}
