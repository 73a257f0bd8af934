// One HTTP status rule for GraphQL (README "GraphQL errors"): 200 without errors, otherwise the
// highest status of the errors' codes. Yoga answers validation errors with 200 under
// `Accept: application/json` (the GraphQL-over-HTTP rule for that media type, marked
// `http.spec`); this puts them under the same rule as every other error: 400. A literal a custom
// scalar refused is first given its argument path (nameInvalidLiterals).
import type { Plugin } from 'graphql-yoga';
import { nameInvalidLiterals } from '../graphql-errors.js';
import { clientErrorStatusFor } from '../rest/http-status.js';

export function useGraphqlStatusRule(): Plugin {
  return {
    onValidate({ params }) {
      return ({ valid, result, setResult }) => {
        if (valid) return;
        const named = nameInvalidLiterals(params.documentAST, result);
        if (named !== result) setResult([...named]);
        for (const error of named) {
          const extensions = error.extensions as Record<string, unknown> & { http?: Record<string, unknown> };
          const code = String(extensions.code ?? 'GRAPHQL_VALIDATION_FAILED');
          extensions.code = code;
          extensions.http = { ...extensions.http, spec: false, status: clientErrorStatusFor(code) };
        }
      };
    },
  };
}
