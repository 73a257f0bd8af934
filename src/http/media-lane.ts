// GET and HEAD of /media/ answered on node:http directly, before yoga: an image grid is fifty
// requests per page, and a CDN's misses all land here, so they skip building a fetch Request and
// Response and running yoga's plugin hooks, as the read lane does for API reads (./read-lane.ts).
// The answer is the one yoga's media plugin gives (./media-answer.ts, the same function), with the
// same CORS headers, X-Request-Id, access line and metrics; test/http/media-serving.test.ts holds
// the two equal. Everything else goes on to `next`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getCORSHeadersByRequestAndOptions } from '@whatwg-node/server';
import { MEDIA_PATH_PREFIX } from '../domain/media-variants.js';
import type { Logger } from '../logger.js';
import { enterRequest, requestIdFrom } from '../request-id.js';
import type { MediaService } from '../services/media/index.js';
import { logAccess, REQUEST_ID_HEADER } from './access-log-plugin.js';
import { answerMedia } from './media-answer.js';
import type { Metrics } from './metrics.js';

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface MediaLaneOptions {
  media: MediaService;
  logger: Logger;
  metrics: Metrics;
  /** the CORS options given to yoga */
  cors: Parameters<typeof getCORSHeadersByRequestAndOptions>[1];
  next: NodeHandler;
}

/** The metrics route of every media request (a label per image would be unbounded). */
export const MEDIA_ROUTE = '/media';

export function createMediaLane(opts: MediaLaneOptions): NodeHandler {
  const header = (req: IncomingMessage, name: string): string | null => {
    const v = req.headers[name];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  };

  async function serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const started = performance.now();
    const id = requestIdFrom(header(req, REQUEST_ID_HEADER));
    enterRequest(id);
    const answer = await answerMedia(opts.media, req.method!, path, (name) => header(req, name));
    const cors = getCORSHeadersByRequestAndOptions({ headers: { get: (name: string) => header(req, name.toLowerCase()) } } as unknown as Request, opts.cors) ?? {};
    const headers: Record<string, string> = { ...answer.headers };
    for (const [k, v] of Object.entries(cors)) headers[k.toLowerCase()] = v;
    headers[REQUEST_ID_HEADER] = id;
    res.writeHead(answer.status, headers);
    res.end(answer.body ?? undefined);
    opts.metrics.observe(MEDIA_ROUTE, req.method!, answer.status, (performance.now() - started) / 1000);
    logAccess(opts.logger, { id, method: req.method!, path, status: answer.status, started });
  }

  return function mediaLane(req, res) {
    const url = req.url;
    if (url === undefined || !url.startsWith(MEDIA_PATH_PREFIX) || (req.method !== 'GET' && req.method !== 'HEAD') || req.headers.upgrade !== undefined) {
      return opts.next(req, res);
    }
    const q = url.indexOf('?');
    serve(req, res, q < 0 ? url : url.slice(0, q)).catch((err: unknown) => {
      opts.logger.error({ err }, 'media lane failed');
      if (!res.headersSent) opts.next(req, res);
      else res.destroy();
    });
  };
}
