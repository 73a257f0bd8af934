// SQL expressions that render a GraphQL value as its final JSON text, byte for byte what
// graphql-js and JSON.stringify make of it (the scalars in src/schema/scalars.ts). to_json escapes
// exactly the characters JSON.stringify escapes (", \, control characters; PostgreSQL text holds
// no lone surrogates).
//
// Two control characters carry what SQL cannot say in JSON. Neither can occur in rendered data
// (to_json escapes every character below U+0020, and text holds no NUL):
// - UNRENDERABLE: a value that cannot promise the resolvers' bytes (a UnixTime beyond 2^53, a
//   NULL in a non-null field, a row that should exist but does not). Its root field is answered
//   by the resolvers instead.
// - ISLAND: `\x01<island>\x02<key>\x01` where a resolver-only field goes; the engine resolves it
//   for that parent key and splices its JSON in (./islands.ts).

export const UNRENDERABLE = '\u0003';
export const ISLAND_MARK = '\u0001';
export const ISLAND_SEPARATOR = '\u0002';

/** SQL literal of a text holding control characters (E'' escapes both backends read). */
const controlLiteral = (c: string) => `E'\\x0${c.charCodeAt(0)}'`;
export const UNRENDERABLE_SQL = controlLiteral(UNRENDERABLE);
export const ISLAND_MARK_SQL = controlLiteral(ISLAND_MARK);
export const ISLAND_SEPARATOR_SQL = controlLiteral(ISLAND_SEPARATOR);

/** A text expression, or UNRENDERABLE where it is NULL (so string_agg cannot drop it silently). */
export const orUnrenderable = (sql: string) => `COALESCE(${sql}, ${UNRENDERABLE_SQL})`;

export const jsonLiteral = (value: string) => `'${JSON.stringify(value).replace(/'/g, "''")}'`;
export const jsonString = (sql: string) => `to_json(${sql})::text`;
export const jsonNullableString = (sql: string) => `COALESCE(to_json(${sql})::text, 'null')`;
export const jsonBoolean = (sql: string) => `CASE WHEN ${sql} THEN 'true' WHEN NOT ${sql} THEN 'false' END`;
export const jsonInt = (sql: string) => `(${sql})::text`;
/** UnixTime serializes Number(v): exact up to 2^53 only, else unrenderable */
export const jsonUnixTime = (sql: string) => `CASE WHEN ${sql} BETWEEN -9007199254740991 AND 9007199254740991 THEN (${sql})::text END`;
/** weiToEther (src/domain/uint256.ts) of a NUMERIC(78,0): the wei digits with a point 18 from the right, trailing zeros dropped */
export function jsonEther(sql: string): string {
  // lpad truncates a longer text: pad to at least 19 digits, never cut
  const digits = `lpad((${sql})::text, greatest(length((${sql})::text), 19), '0')`;
  const fraction = `rtrim(right(${digits}, 18), '0')`;
  return `to_json(CASE WHEN ${fraction} = '' THEN left(${digits}, -18) ELSE left(${digits}, -18) || '.' || ${fraction} END)::text`;
}

/** `{"key":<expr>,...}` as one SQL text expression (keys are GraphQL names: nothing to escape). */
export function jsonObjectSql(fields: readonly { key: string; sql: string }[]): string {
  if (!fields.length) return `'{}'`;
  return fields.map((f, i) => `'${i ? ',' : '{'}"${f.key}":' || ${f.sql}`).join(' || ') + ` || '}'`;
}

/**
 * A Relay global id (src/schema/node.ts): base64 of `<typename>:<key>`, as Pothos encodes it
 * (Buffer's base64 of the UTF-8 text, padded). PostgreSQL's base64 breaks its output into lines
 * of 76 characters; the id is one line.
 */
export const jsonGlobalId = (typename: string, keySql: string) =>
  `to_json(replace(encode(convert_to('${typename}:' || ${keySql}, 'UTF8'), 'base64'), chr(10), ''))::text`;
