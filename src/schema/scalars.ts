// Scalars for the marketplace's value formats. Parsing reuses the domain parsers so GraphQL and
// REST accept and refuse exactly the same inputs. A refused value is an InvalidInputValue
// carrying the problem code REST gives the same mistake; ./errors.ts names the
// variable path or argument it was found at (docs/api.md, "Errors").
import { Kind, type ValueNode } from 'graphql';
import { normalizeAddress } from '../domain/address.js';
import { parseParams } from '../domain/order-params.js';
import { normalizeHash } from '../domain/order-query.js';
import { parseUint256 } from '../domain/uint256.js';
import { builder } from './builder.js';
import { InvalidInputValue } from './errors.js';

const literal = (ast: ValueNode): unknown => (ast.kind === Kind.STRING || ast.kind === Kind.INT ? ast.value : undefined);

/** A scalar's value parser, used for variables (no node) and literals (the node, for its place). */
type Parse<T> = (v: unknown, ast?: ValueNode) => T;

function scalarParser<T>(scalar: string, problem: string, detail: string, parse: (v: unknown) => T | null): Parse<T> {
  return (v, ast) => {
    const parsed = parse(v);
    if (parsed === null) throw new InvalidInputValue(scalar, problem, detail, ast);
    return parsed;
  };
}

const parseAddress = scalarParser('Address', 'INVALID_ADDRESS', 'expected 0x followed by 40 hexadecimal digits', normalizeAddress);
builder.scalarType('Address', {
  description: 'An Ethereum address. Accepted in any letter case; returned EIP-55 checksummed.',
  serialize: (v) => v as string,
  parseValue: (v) => parseAddress(v),
  parseLiteral: (ast) => parseAddress(literal(ast), ast),
});

const parseUint = scalarParser('Uint256', 'INVALID_UINT256', 'expected a decimal integer string from 0 to 2^256-1', (v) =>
  parseUint256(typeof v === 'number' ? v : typeof v === 'string' ? v : undefined),
);
builder.scalarType('Uint256', {
  description: 'An unsigned 256-bit integer as a decimal string (wei amounts, token ids, nonces).',
  serialize: (v) => String(v),
  parseValue: (v) => parseUint(v),
  parseLiteral: (ast) => parseUint(literal(ast), ast),
});

const parseTime = scalarParser('UnixTime', 'INVALID_TIMESTAMP', 'expected whole seconds since 1970 (at most 2^53-1)', (v) => {
  const n = parseUint256(typeof v === 'number' || typeof v === 'string' ? v : undefined);
  return n !== null && n <= BigInt(Number.MAX_SAFE_INTEGER) ? n : null;
});
builder.scalarType('UnixTime', {
  description: 'A unix timestamp in whole seconds, as a JSON number (wider than GraphQL Int, which ends in 2038).',
  serialize: (v) => Number(v),
  parseValue: (v) => parseTime(v),
  parseLiteral: (ast) => parseTime(literal(ast), ast),
});

const parseHash = scalarParser('Hash', 'INVALID_HASH', 'expected 0x followed by 64 hexadecimal digits', normalizeHash);
builder.scalarType('Hash', {
  description: 'A 32-byte hash as 0x-prefixed lowercase hex (order hashes).',
  serialize: (v) => v as string,
  parseValue: (v) => parseHash(v),
  parseLiteral: (ast) => parseHash(literal(ast), ast),
});

// One element of MakerOrder.params (the v1 SDK infers its Solidity type: order-params.ts).
const paramLiteral = (ast: ValueNode): unknown =>
  ast.kind === Kind.STRING ? ast.value : ast.kind === Kind.BOOLEAN ? ast.value : ast.kind === Kind.INT ? Number(ast.value) : undefined;
const parseParam = scalarParser('OrderParam', 'INVALID_PARAMS', 'expected an address, a boolean or an integer in 0..2^256-1 that the v1 SDK can encode', (v) =>
  (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') && parseParams([v]).ok ? v : null,
);
builder.scalarType('OrderParam', {
  description: 'One element of MakerOrder.params as the v1 SDK accepted it: an address or integer string, a boolean, or a safe integer.',
  serialize: (v) => v as string | boolean,
  parseValue: (v) => parseParam(v),
  parseLiteral: (ast) => parseParam(paramLiteral(ast), ast),
});
