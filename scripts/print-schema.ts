// Writes schema.graphql from the Pothos schema (the code is the source of truth).
import { writeFileSync } from 'node:fs';
import { printedSchema } from '../src/schema/index.js';

writeFileSync(new URL('../schema.graphql', import.meta.url), printedSchema());
console.log('schema.graphql written');
