// One GraphQL request answered by the read engine or by the resolvers alone (READ_ENGINE off for
// that request), with the statements it sent: the engine's tests compare the two byte for byte.
import type { TestApp } from './test-app.js';

export async function answerVia(app: TestApp, query: string, variables: Record<string, unknown>, readEngine: boolean): Promise<{ text: string; statements: string[] }> {
  app.services.deps.config.readEngine = readEngine;
  const log = app.testDb.statements;
  log.length = 0;
  try {
    const res = await app.yoga.fetch('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return { text: `${res.status} ${await res.text()}`, statements: [...log] };
  } finally {
    app.services.deps.config.readEngine = true;
  }
}
