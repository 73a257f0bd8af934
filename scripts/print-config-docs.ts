// Writes docs/configuration.md and .env.example from the settings declared in src/config.ts.
import { writeFileSync } from 'node:fs';
import { configurationPage, envExample } from './config-docs.js';

writeFileSync(new URL('../docs/configuration.md', import.meta.url), configurationPage());
writeFileSync(new URL('../.env.example', import.meta.url), envExample());
console.log('docs/configuration.md and .env.example written');
