// One HTTP status rule for GraphQL (README "GraphQL errors"): 200 without errors, otherwise the
// highest status of the errors' codes. Yoga answers validation errors with 200 under
// `Accept: application/json` (the GraphQL-over-HTTP rule for that media type, marked
// `http.spec`); this puts them under the same rule as every other error: 400.
import type { Plugin } from 'graphql-yoga';
import { clientErrorStatusFor } from '../rest/http-status.js';

export function useGraphqlStatusRule(): Plugin {
  return {
    onValidate() {
      return ({ valid, result }) => {
        if (valid) return;
        for (const error of result) {
          const extensions = error.extensions as Record<string, unknown> & { http?: Record<string, unknown> };
          const code = String(extensions.code ?? 'GRAPHQL_VALIDATION_FAILED');
          extensions.code = code;
          extensions.http = { ...extensions.http, spec: false, status: clientErrorStatusFor(code) };
        }
      };
    },
  };
}
