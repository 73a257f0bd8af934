// What a production GraphQL endpoint may be asked: introspection can be switched off
// (on by default: analysts explore the schema with it), and operations can be limited to a
// persisted list (an allow-list by id, GRAPHQL_PERSISTED_ONLY) with graphql-yoga's
// persisted-operations plugin. The REST layer runs its own documents below HTTP and is unaffected.
import { readFileSync } from 'node:fs';
import { NoSchemaIntrospectionCustomRule, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { ConfigError, type Config } from '../config.js';

/** Reads the persisted-operations file: a JSON object from operation id to document text. */
export function loadPersistedOperations(file: string): Map<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`GRAPHQL_PERSISTED_OPERATIONS: cannot read ${file} as JSON (${(err as Error).message})`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || Object.values(parsed).some((q) => typeof q !== 'string')) {
    throw new ConfigError('GRAPHQL_PERSISTED_OPERATIONS: expected a JSON object of { "operation id": "query text" }');
  }
  return new Map(Object.entries(parsed as Record<string, string>));
}

/** The validation rules the policy adds to graphql-js's (yoga's plugin and the read lane). */
export function graphqlValidationRules(config: Pick<Config, 'graphqlIntrospection'>): ValidationRule[] {
  return config.graphqlIntrospection ? [] : [NoSchemaIntrospectionCustomRule];
}

export function graphqlPolicyPlugins(config: Pick<Config, 'graphqlIntrospection' | 'persistedOperations'>): Plugin[] {
  const plugins: Plugin[] = [];
  const rules = graphqlValidationRules(config);
  if (rules.length) {
    plugins.push({
      onValidate: ({ addValidationRule }) => rules.forEach((rule) => addValidationRule(rule)),
    });
  }
  const { file, only } = config.persistedOperations;
  if (only && !file) throw new ConfigError('GRAPHQL_PERSISTED_ONLY needs GRAPHQL_PERSISTED_OPERATIONS (the allowed operations)');
  if (file) {
    const operations = loadPersistedOperations(file);
    plugins.push(
      usePersistedOperations({
        getPersistedOperation: (id) => operations.get(id) ?? null,
        allowArbitraryOperations: !only,
        customErrors: {
          notFound: { message: 'Unknown persisted operation', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 400 } } },
          persistedQueryOnly: { message: 'Only persisted operations are accepted here', extensions: { code: 'PERSISTED_QUERY_ONLY', http: { status: 400 } } },
          keyNotFound: { message: 'A persisted operation id is required', extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED', http: { status: 400 } } },
        },
      }),
    );
  }
  return plugins;
}
