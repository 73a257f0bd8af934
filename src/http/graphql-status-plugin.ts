// One HTTP status rule for GraphQL (docs/graphql-over-http.md): 200 without errors, otherwise
// the highest status of the errors' codes; except for a request GraphQL refused before executing
// it (its document does not parse or validate, or its variables do not coerce: there is no
// `data`), which GraphQL over HTTP answers by media type
// (https://graphql.github.io/graphql-over-http/draft/#sec-Legacy-Watershed):
// `application/graphql-response+json` 400, `application/json` (or no Accept) 200, as clients of
// that older media type treat any 4xx as a transport failure and never show the `errors`. yoga
// applies the media-type part to the errors marked `http.spec`; this marks exactly those. A
// literal a custom scalar refused is first given its argument path (nameInvalidLiterals).
import type { Plugin } from 'graphql-yoga';
import { isAsyncIterable } from 'graphql-yoga';
import { clientErrorStatusFor, nameInvalidLiterals } from '../schema/errors.js';

type HttpExtension = { status?: number; spec?: boolean; headers?: Record<string, string> };

export function useGraphqlStatusRule(): Plugin {
  // Requests whose variables failed to coerce: those errors are masked (coded, given a status)
  // after these hooks, so they are marked once the result is final. A document that does not
  // parse is known by its code (yoga's parser cache answers a repeated one without the parse hooks).
  const notExecuted = new WeakSet<Request>();
  const requestOf = (context: unknown) => (context as { request?: Request } | undefined)?.request;
  return {
    onValidate({ params }) {
      return ({ valid, result, setResult }) => {
        if (valid) return;
        const named = nameInvalidLiterals(params.documentAST, result);
        if (named !== result) setResult([...named]);
        for (const error of named) {
          const extensions = error.extensions as Record<string, unknown> & { http?: HttpExtension };
          const code = String(extensions.code ?? 'GRAPHQL_VALIDATION_FAILED');
          extensions.code = code;
          extensions.http = { ...extensions.http, spec: true, status: clientErrorStatusFor(code) };
        }
      };
    },
    onExecute({ args }) {
      return {
        onExecuteDone({ result }) {
          // graphql-js answers without `data` only when it never ran the operation: coercion failed
          const request = requestOf(args.contextValue);
          if (request && !isAsyncIterable(result) && !('data' in result)) notExecuted.add(request);
        },
      };
    },
    onResultProcess({ request, result }) {
      if (Array.isArray(result) || isAsyncIterable(result) || 'data' in result || !result.errors) return;
      const coercion = notExecuted.has(request);
      for (const error of result.errors) {
        const extensions = error.extensions as { code?: unknown; http?: HttpExtension } | undefined;
        if (extensions?.http && (coercion || extensions.code === 'GRAPHQL_PARSE_FAILED')) extensions.http.spec = true;
      }
    },
  };
}
