// POST /api/v1/media: an admin's image (a logo, a banner), stored with every variant at once.
// The body is the image itself (any Content-Type; the type is sniffed from the bytes) or a
// multipart/form-data form with the image in its `file` field, at most MEDIA_MAX_BYTES (not
// MAX_BODY_BYTES: the media plugin answers before the body guard). Admin only (`x-api-key`, as
// the GraphQL administration mutations). Answers, in the v1 envelope, the image's SHA-256, what
// it is and the URL of each variant: 201 when new, 200 when these bytes were stored already.
// Run through the routes plugin's runRestHandler: a refused key, an unavailable database or a
// fault answer as every v1 route's do.
import { API_PREFIX } from '../rest/routes.js';
import { fail, ok, type RestReply } from '../rest/envelope.js';
import { requireAdmin } from '../services/api-key-guards.js';
import type { Services } from '../services/index.js';
import { readLimited } from './request-guards.js';

export const MEDIA_UPLOAD_PATH = `${API_PREFIX}/media`;

/** A form's boundaries and part headers around the file. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024;

export async function answerMediaUpload(services: Services, request: Request): Promise<RestReply> {
  if (request.method !== 'POST') return fail(405, `Method ${request.method} is not allowed on ${MEDIA_UPLOAD_PATH}`, undefined, { Allow: 'POST' });
  requireAdmin({ services, headers: request.headers });
  const type = request.headers.get('content-type') ?? '';
  const multipart = /^multipart\/form-data\s*;/i.test(type);
  const cap = services.media.limits.maxBytes + (multipart ? MULTIPART_OVERHEAD_BYTES : 0);
  // close: the unread rest of a refused body must not be taken for the next request
  const tooLarge = () => fail(413, `The image is over the ${services.media.limits.maxBytes} byte limit (MEDIA_MAX_BYTES)`, undefined, { Connection: 'close' });
  if (Number(request.headers.get('content-length') ?? 0) > cap) return tooLarge();
  let body: Uint8Array | null;
  try {
    body = request.body ? await readLimited(request.body, cap) : new Uint8Array();
  } catch {
    return fail(400, 'The request body could not be read', undefined, { Connection: 'close' });
  }
  if (body === null) return tooLarge();
  let image = body;
  if (multipart) {
    let file: FormDataEntryValue | null;
    try {
      file = (await new Response(body as BodyInit, { headers: { 'content-type': type } }).formData()).get('file');
    } catch {
      return fail(400, 'The multipart/form-data body could not be parsed');
    }
    if (!(file instanceof Blob)) return fail(400, 'A multipart upload carries the image in its "file" field', [{ field: 'file', code: 'REQUIRED', message: 'no file' }]);
    image = new Uint8Array(await file.arrayBuffer());
  }
  const stored = await services.media.upload(image);
  if (!('sha256' in stored)) {
    const problem = [{ field: 'file', code: stored.code, message: stored.message }];
    return stored.code === 'TOO_LARGE' ? fail(413, `Image refused: ${stored.message}`, problem) : fail(400, `Image refused (${stored.code}): ${stored.message}`, problem);
  }
  return ok(stored, stored.created ? 201 : 200);
}
