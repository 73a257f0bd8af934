// Names for the statements worth preparing: the read engine sends a few statement texts over and
// over (one per query shape), each several kilobytes of SQL. Named, a connection parses it once and
// afterwards receives only its parameters (less to send, nothing to parse). PostgreSQL would swap
// in a generic plan after five runs, which on a skewed market reads a hot collection's whole book;
// the pool sets plan_cache_mode = force_custom_plan (src/db/database.ts) so every run is still
// planned for its own values. A prepared statement lives as long as its connection: the names are
// bounded, and texts beyond the bound run unnamed.
import { createHash } from 'node:crypto';

export function createPreparedNames(max = 256): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (name === undefined && names.size < max) {
      name = `p${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
      names.set(text, name);
    }
    return name;
  };
}
