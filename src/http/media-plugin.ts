// A yoga plugin for media: GET and HEAD of /media/<sha256>/<variant> (over node:http the media
// lane, ./media-lane.ts, answers these first, with the same function) and the admin upload,
// POST /api/v1/media. Placed before the body guard: an upload has its own limit (MEDIA_MAX_BYTES).
import type { Plugin } from 'graphql-yoga';
import { MEDIA_PATH_PREFIX } from '../domain/media-variants.js';
import { toResponse } from '../rest/envelope.js';
import type { Logger } from '../logger.js';
import type { Services } from '../services/index.js';
import { answerMedia } from './media-answer.js';
import { MEDIA_ROUTE } from './media-lane.js';
import { answerMediaUpload, MEDIA_UPLOAD_PATH } from './media-upload.js';
import type { Metrics } from './metrics.js';
import { runRestHandler } from './routes-plugin.js';

export function useMedia(opts: { services: Services; metrics: Metrics; logger: Logger }): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      const started = performance.now();
      const path = url.pathname;
      if (path.startsWith(MEDIA_PATH_PREFIX)) {
        const answer = await answerMedia(opts.services.media, request.method, path, (name) => request.headers.get(name));
        opts.metrics.observe(MEDIA_ROUTE, request.method, answer.status, (performance.now() - started) / 1000);
        return endResponse(new Response(answer.body as BodyInit | null, { status: answer.status, headers: answer.headers }));
      }
      if ((path === MEDIA_UPLOAD_PATH || path === `${MEDIA_UPLOAD_PATH}/`) && request.method !== 'OPTIONS') {
        const reply = await runRestHandler(() => answerMediaUpload(opts.services, request), path, opts.logger);
        opts.metrics.observe(MEDIA_UPLOAD_PATH, request.method, reply.status, (performance.now() - started) / 1000);
        return endResponse(toResponse(reply));
      }
    },
  };
}
