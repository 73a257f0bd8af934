// Why an image is not stored, as values: the closed set the sniffer and the encoder answer with.
// A source URL that fails earlier fails with the fetcher's codes (TIMEOUT, HTTP_STATUS,
// BLOCKED_TARGET, ...: src/services/metadata-fetch/fetch-outcome.ts) or the URI parser's
// (UNSUPPORTED_URI, INVALID_URI); src/services/media/media-error-code.ts joins the three sets.

export const MEDIA_REFUSAL_CODES = [
  /** no bytes at all */
  'EMPTY',
  /** not one of the image types stored (src/domain/image-sniff.ts), HTML or script included */
  'UNSUPPORTED_TYPE',
  /** bytes that read as two things at once (an image that also carries markup), or whose decoder disagrees with the sniff */
  'AMBIGUOUS_TYPE',
  /** more bytes than MEDIA_MAX_BYTES */
  'TOO_LARGE',
  /** more pixels than MEDIA_MAX_PIXELS once decoded: a decompression bomb, or merely too big */
  'TOO_MANY_PIXELS',
  /** the decoder failed: truncated, corrupt, or not what its header says */
  'DECODE_FAILED',
  /** decoding and encoding took longer than the encoder allows */
  'ENCODE_TIMEOUT',
] as const;

export type MediaRefusalCode = (typeof MEDIA_REFUSAL_CODES)[number];

export interface MediaRefusal {
  ok: false;
  code: MediaRefusalCode;
  message: string;
}

export const refusal = (code: MediaRefusalCode, message: string): MediaRefusal => ({ ok: false, code, message });
