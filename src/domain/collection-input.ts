// Validation of collection administration input (upsertCollection, the JSON import): every
// field of spec 2.6; `null` clears an optional field, an absent field is left unchanged.
import * as z from 'zod';
import { normalizeAddress } from './address.js';
import type { FieldProblem } from './errors.js';

export const COLLECTION_TYPES = ['ERC721', 'ERC1155'] as const;
export type CollectionTypeName = (typeof COLLECTION_TYPES)[number];

/** Shown when a collection has no name (spec 2.6: "a fixed service default name"). */
export const DEFAULT_COLLECTION_NAME = 'Unnamed collection';

export const LINK_FIELDS = [
  'websiteLink',
  'alphaLink',
  'bravoLink',
  'charlieLink',
  'deltaLink',
  'echoLink',
  'foxtrotLink',
  'logoURI',
  'bannerURI',
] as const;

const address = z.string().transform((v, ctx) => {
  const a = normalizeAddress(v);
  if (!a) {
    ctx.addIssue({ code: 'custom', message: 'must be an address: 0x followed by 40 hexadecimal digits', params: { code: 'INVALID_ADDRESS' } });
    return z.NEVER;
  }
  return a;
});

const url = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'https:' || u.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);

const inputSchema = z
  .object({
    address,
    type: z.enum(COLLECTION_TYPES).optional(),
    owner: address.optional(),
    setter: address.nullable().optional(),
    admin: address.nullable().optional(),
    name: text(200).nullable().optional(),
    description: text(10_000).nullable().optional(),
    symbol: text(64).nullable().optional(),
    websiteLink: url.nullable().optional(),
    alphaLink: url.nullable().optional(),
    bravoLink: url.nullable().optional(),
    charlieLink: url.nullable().optional(),
    deltaLink: url.nullable().optional(),
    echoLink: url.nullable().optional(),
    foxtrotLink: url.nullable().optional(),
    isVerified: z.boolean().optional(),
    isExplicit: z.boolean().optional(),
    logoURI: url.nullable().optional(),
    bannerURI: url.nullable().optional(),
  })
  .strict();

export type CollectionInput = z.infer<typeof inputSchema>;

export function parseCollectionInput(raw: unknown): { ok: true; value: CollectionInput } | { ok: false; problems: FieldProblem[] } {
  const r = inputSchema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    problems: r.error.issues.map((i) => ({
      field: i.path.join('.') || '(input)',
      code:
        (i as { params?: { code?: string } }).params?.code ??
        (i.code === 'unrecognized_keys' ? 'UNKNOWN_FIELD' : i.code === 'invalid_type' ? 'INVALID_TYPE' : 'INVALID_VALUE'),
      message: i.message,
    })),
  };
}
