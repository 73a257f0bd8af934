// Runs a REST route's GraphQL document against the same schema and resolvers as /graphql, and
// turns GraphQL errors into the REST failure envelope through the same error masking.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { execute, GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Context } from '../context.js';
import type { FieldProblem } from '../domain/errors.js';
import { httpHeadersFor, httpStatusFor, maskError } from '../schema/errors.js';
import { schema } from '../schema/index.js';
import { fail, type RestReply } from './envelope.js';

export class RestFailure extends Error {
  constructor(readonly reply: RestReply) {
    super('rest failure');
  }
}

export async function runDocument<TData, TVars extends Record<string, unknown>>(
  document: TypedDocumentNode<TData, TVars>,
  variables: TVars,
  ctx: Context,
  /** the executor: graphql-js', or the read engine in front of it (executeWithEngine) */
  run: (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult = execute,
): Promise<TData> {
  const result = await run({ schema, document, variableValues: variables, contextValue: ctx });
  if (result.errors?.length) {
    const masked = maskError(result.errors[0], 'Internal server error') as GraphQLError;
    const code = String(masked.extensions?.code ?? 'INTERNAL');
    if (code === 'INTERNAL') ctx.services.deps.onInternalError?.(result.errors[0]);
    const problems = masked.extensions?.problems as FieldProblem[] | undefined;
    throw new RestFailure(fail(httpStatusFor(code), masked.message, problems, httpHeadersFor(code)));
  }
  return result.data as TData;
}
