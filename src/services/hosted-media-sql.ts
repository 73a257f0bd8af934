// A source image's URL as a client is given it: our own media URL (/media/<sha256>/<variant>,
// under MEDIA_BASE_URL) once the image is stored (docs/media.md), the source URL until then. One
// SQL rule for the read engine (src/read-engine/read-types.ts, metadata-reads.ts) and the
// resolvers (src/schema/hosted-media.ts), so the two cannot disagree.
import type { MediaVariant } from '../domain/media-variants.js';

/** media_sources' key of a URL (src/services/media/media-queue.ts): the SHA-256 of its text. */
export const urlSha256Sql = (urlSql: string) => `encode(sha256(convert_to(${urlSql}, 'UTF8')), 'hex')`;

/** The variant a field gives out: a logo or a token image for a card, a banner full width. */
export const HOSTED_VARIANT = { logo: 'w256', banner: 'w1024', token: 'w256' } as const satisfies Record<string, MediaVariant>;

/** SQL of the URL to give out for the source URL `urlSql` (null stays null): src/db/sql/hosted_media_url.sql. */
export function hostedUrlSql(urlSql: string, variant: MediaVariant, baseUrl: string | undefined): string {
  // MEDIA_BASE_URL is an http(s) origin without quotes (src/config.ts); doubled all the same
  const prefix = `'${`${baseUrl ?? ''}/media/`.replaceAll("'", "''")}'`;
  return `hosted_media_url(${urlSql}, '${variant}', ${prefix})`;
}
