// Scalars for the marketplace's value formats. Parsing reuses the domain parsers so GraphQL and
// REST accept and refuse exactly the same inputs.
import { createGraphQLError } from 'graphql-yoga';
import { Kind, type ValueNode } from 'graphql';
import { normalizeAddress } from '../domain/address.js';
import { normalizeHash } from '../domain/order-query.js';
import { parseUint256 } from '../domain/uint256.js';
import { builder } from './builder.js';

const literal = (ast: ValueNode): unknown => (ast.kind === Kind.STRING || ast.kind === Kind.INT ? ast.value : undefined);

function invalid(scalar: string, message: string): never {
  throw createGraphQLError(`Invalid ${scalar}: ${message}`, { extensions: { code: 'BAD_USER_INPUT' } });
}

const parseAddress = (v: unknown) => normalizeAddress(v) ?? invalid('Address', 'expected 0x followed by 40 hexadecimal digits');
builder.scalarType('Address', {
  description: 'An Ethereum address. Accepted in any letter case; returned EIP-55 checksummed.',
  serialize: (v) => v as string,
  parseValue: parseAddress,
  parseLiteral: (ast) => parseAddress(literal(ast)),
});

const parseUint = (v: unknown) =>
  parseUint256(typeof v === 'number' ? v : typeof v === 'string' ? v : undefined) ??
  invalid('Uint256', 'expected a decimal integer string from 0 to 2^256-1');
builder.scalarType('Uint256', {
  description: 'An unsigned 256-bit integer as a decimal string (wei amounts, token ids, nonces).',
  serialize: (v) => String(v),
  parseValue: parseUint,
  parseLiteral: (ast) => parseUint(literal(ast)),
});

const parseTime = (v: unknown) => {
  const n = parseUint256(typeof v === 'number' || typeof v === 'string' ? v : undefined);
  return n !== null && n <= BigInt(Number.MAX_SAFE_INTEGER) ? n : invalid('UnixTime', 'expected whole seconds since 1970');
};
builder.scalarType('UnixTime', {
  description: 'A unix timestamp in whole seconds, as a JSON number (wider than GraphQL Int, which ends in 2038).',
  serialize: (v) => Number(v),
  parseValue: parseTime,
  parseLiteral: (ast) => parseTime(literal(ast)),
});

const parseHash = (v: unknown) => normalizeHash(v) ?? invalid('Hash', 'expected 0x followed by 64 hexadecimal digits');
builder.scalarType('Hash', {
  description: 'A 32-byte hash as 0x-prefixed lowercase hex (order hashes).',
  serialize: (v) => v as string,
  parseValue: parseHash,
  parseLiteral: (ast) => parseHash(literal(ast)),
});
