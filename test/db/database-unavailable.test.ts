// Which failures mean "the database is not answering now" (503, retry) rather than a bug (500),
// however pg, pg-pool, adapter-pg and Prisma wrap them; and what a client sees of one.
import { describe, expect, it } from 'vitest';
import { GraphQLError } from 'graphql';
import { isDatabaseUnavailable } from '../../src/db/database-unavailable.js';
import { maskError } from '../../src/schema/errors.js';

const sysErr = (code: string) => Object.assign(new Error(`connect ${code} 10.1.2.3:5432`), { code, syscall: 'connect', errno: -111 });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['refused', sysErr('ECONNREFUSED')],
    ['several addresses refused', new AggregateError([sysErr('ECONNREFUSED')])],
    ['pool acquisition timeout', new Error('timeout exceeded when trying to connect')],
    ['client read timeout', new Error('Query read timeout')],
    ['connection dropped', new Error('Connection terminated unexpectedly')],
    ['server shutting down (57P01)', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['statement timeout (57014)', Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })],
    ['too many connections', Object.assign(new Error('x'), { cause: { kind: 'TooManyConnections' } })],
    ['Prisma pool timeout', Object.assign(new Error('Timed out fetching a new connection from the connection pool'), { code: 'P2024' })],
    ['Prisma expired transaction', Object.assign(new Error('Transaction API error: Transaction already closed: expired transaction'), { code: 'P2028' })],
    ['wrapped in a GraphQL error', new GraphQLError('Unexpected', { originalError: sysErr('ECONNRESET') })],
  ])('%s: yes', (_, err) => expect(isDatabaseUnavailable(err)).toBe(true));

  it.each([
    ['a bug', new TypeError('x is undefined')],
    ['a unique violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a Prisma not-found', Object.assign(new Error('No record'), { code: 'P2025' })],
    ['nothing', undefined],
  ])('%s: no', (_, err) => expect(isDatabaseUnavailable(err)).toBe(false));

  it('reaches GraphQL clients as SERVICE_UNAVAILABLE with 503 and Retry-After, without the address', () => {
    const masked = maskError(new GraphQLError('boom', { originalError: sysErr('ECONNREFUSED') }), 'Unexpected error.') as GraphQLError;
    expect(masked.extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', http: { status: 503, headers: { 'Retry-After': '5' } } });
    expect(masked.message).not.toMatch(/10\.1\.2\.3|ECONNREFUSED/);
  });
});
