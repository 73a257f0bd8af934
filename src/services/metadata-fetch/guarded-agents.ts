// Keep-alive agents for the content fetcher. The guarded lookup sits on the agent (an agent's
// options win over a request's when it opens a socket), so every pooled connection was checked
// when it was opened and goes on to the address it was checked at: reusing it checks nothing less.
import http from 'node:http';
import https from 'node:https';
import { guardedLookup } from '../guarded-lookup.js';

/** Idle connections are closed after this long (servers' own keep-alive is often 5 s). */
const IDLE_MS = 4000;

export interface GuardedAgents {
  http: http.Agent;
  https: https.Agent;
  destroy(): void;
}

export function createGuardedAgents(allowPrivate: boolean, maxSocketsPerHost: number): GuardedAgents {
  const options = { keepAlive: true, timeout: IDLE_MS, maxSockets: maxSocketsPerHost, lookup: guardedLookup(allowPrivate) };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };
  return {
    ...agents,
    destroy() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
