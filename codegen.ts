// GraphQL Code Generator: typed documents for the REST adapter (src/rest/documents.ts) and the
// tests, generated from the committed schema.graphql into src/gql (committed; a test checks drift).
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['src/rest/documents.ts', 'src/rest/indexer-documents.ts', 'test/**/*.ts', '!test/sdk-client/**'],
  ignoreNoDocuments: true,
  // ESM with NodeNext resolution: relative imports need their .js extension.
  emitLegacyCommonJSImports: false,
  generates: {
    'src/gql/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: {
          Address: 'string',
          Hash: 'string',
          Uint256: 'string',
          UnixTime: 'number',
          // MakerOrder.params elements as the v1 SDK takes them (src/schema/scalars.ts)
          OrderParam: { input: 'string | number | boolean', output: 'string | boolean' },
        },
      },
    },
  },
};

export default config;
