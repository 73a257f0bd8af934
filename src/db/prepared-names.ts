// Names for the statements worth preparing: the read engine sends a few statement texts over and
// over (one per query shape's template), each several kilobytes of SQL. Named, a connection parses
// it once and afterwards receives only its parameters (less to send, nothing to parse). PostgreSQL
// would swap in a generic plan after five runs, which on a skewed market reads a hot collection's
// whole book; the pool sets plan_cache_mode = force_custom_plan (src/db/database.ts) so every run
// is still planned for its own values. A prepared statement lives as long as its connection: the
// names are bounded, and only texts known to recur take one (`name`); a text sent once (a shape's
// first request, a page cursor's, a refused template's) is looked up (`existing`) and otherwise
// runs unnamed, so one-off texts never use up the names the templates made later need.
import { createHash } from 'node:crypto';

export interface PreparedNames {
  /** the text's name, given now if it has none and there is room (a text that recurs) */
  name(text: string): string | undefined;
  /** the text's name if it has one already (a text that may be sent once) */
  existing(text: string): string | undefined;
}

export function createPreparedNames(max = 256): PreparedNames {
  const names = new Map<string, string>();
  return {
    name(text) {
      let name = names.get(text);
      if (name === undefined && names.size < max) {
        name = `p${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
        names.set(text, name);
      }
      return name;
    },
    existing: (text) => names.get(text),
  };
}
