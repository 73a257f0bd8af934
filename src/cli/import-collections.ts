// npm run collections:import -- <file.json>: creates or updates collections from a JSON array
// (each entry an UpsertCollectionInput) through the same service and validation as the admin
// mutation. The file is applied whole or not at all. Runs with the operator's database
// credentials, so it is the CLI form of the x-api-key guarded mutation.
import { runJsonImport } from './run-json-import.js';

await runJsonImport(`usage: npm run collections:import -- <collections.json>
Creates or updates collections from a JSON array of UpsertCollectionInput objects (the admin
mutation's input), all or nothing; the problems of a refused file are printed (exit 1).`, async (services, list, file) => {
  const r = await services.collections.importCollections(list);
  return `imported ${file}: ${r.created} created, ${r.updated} updated`;
});
