// A collection's own metadata document (ERC-7572 contractURI, as OpenSea documents it: name,
// description, image, banner_image, external_link) turned into the collection fields it may fill.
// The document comes from the contract's deployer: bounded and sanitised by the token document's
// rules (./token-metadata.ts), a bad field dropped with a warning, never the collection.
import { imageOf, METADATA_LIMITS, Normaliser, parseMetadataDocument, type MetadataProblemCode } from './token-metadata.js';

/** The collection columns a contract document may fill, by their GraphQL names. */
export interface ContractMetadata {
  name: string | null;
  description: string | null;
  logoURI: string | null;
  bannerURI: string | null;
  websiteLink: string | null;
}

export const CONTRACT_FIELDS = ['name', 'description', 'logoURI', 'bannerURI', 'websiteLink'] as const;

export function normaliseContractMetadata(bytes: Uint8Array): { ok: true; metadata: ContractMetadata; warnings: string[] } | { ok: false; code: MetadataProblemCode; message: string } {
  const parsed = parseMetadataDocument(bytes);
  if (!parsed.ok) return parsed;
  const doc = parsed.doc;
  const n = new Normaliser();
  const metadata: ContractMetadata = {
    name: n.textField(doc, 'name', METADATA_LIMITS.maxName),
    description: n.textField(doc, 'description', METADATA_LIMITS.maxDescription, true),
    logoURI: imageOf(doc, n),
    bannerURI: n.urlField(doc, ['banner_image']),
    websiteLink: n.urlField(doc, ['external_link', 'external_url']),
  };
  return { ok: true, metadata, warnings: n.finishWarnings() };
}
