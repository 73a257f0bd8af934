// The literals now live with the other shared SQL (src/db/sql-literals.ts).
export * from '../../db/sql-literals.js';
