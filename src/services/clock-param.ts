// A statement parameter whose value is a function of the clock. A statement built and sent at
// once reads the clock once (`clockParams`); the read engine keeps a statement's text per query
// shape and computes these values again for each request's clock
// (src/read-engine/statement-template.ts), so SQL shared by both takes its clock this way.

/** Adds a parameter computed from the clock, `at((now) => value, cast)`: its placeholder (`$3::bigint`). */
export type AddClockParam = (value: (now: Date) => unknown, cast?: string) => string;

/** Clock parameters of one statement, all at `now`, added through `add`. */
export const clockParams =
  (add: (value: unknown, cast?: string) => string, now: Date): AddClockParam =>
  (value, cast) =>
    add(value(now), cast);

/** The clock as whole unix seconds (text, for a `::bigint` parameter): the book's `now`. */
export const unixSeconds = (now: Date): string => String(Math.floor(now.getTime() / 1000));
