// A token's metadata document (ERC-721/1155 metadata JSON, as OpenSea documents it) turned into
// the fields we store and serve. The document comes from anyone who deployed a contract: it is
// bounded before it is parsed, and whatever is wrong in one field drops that field with a
// warning instead of the token.
import { Buffer } from 'node:buffer';
import { parseContentUri } from './token-uri.js';

export type AttributeKind = 'STRING' | 'NUMBER' | 'DATE';

export interface NormalisedAttribute {
  traitType: string;
  /** the text shown; for NUMBER and DATE the canonical JS number text of numberValue */
  value: string;
  displayType: string | null;
  kind: AttributeKind;
  /** NUMBER: the value; DATE: unix seconds; STRING: null */
  numberValue: number | null;
}

export interface NormalisedMetadata {
  name: string | null;
  description: string | null;
  image: string | null;
  animationUrl: string | null;
  externalUrl: string | null;
  attributes: NormalisedAttribute[];
  warnings: string[];
}

export type MetadataProblemCode = 'INVALID_JSON' | 'TOO_LARGE' | 'INVALID_METADATA';

/** Text limits count code points (what PostgreSQL's varchar(n) counts). */
export const METADATA_LIMITS = { maxDocumentBytes: 256 * 1024, maxDepth: 32, maxAttributes: 500, maxName: 200, maxDescription: 10_000, maxUrl: 4096, maxTraitType: 100, maxTraitValue: 500 } as const;

type Result = { ok: true; metadata: NormalisedMetadata } | { ok: false; code: MetadataProblemCode; message: string };
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Past this many, warnings are summed up in one: a hostile document can make thousands. */
const MAX_WARNINGS = 20;

/**
 * Whether containers nest deeper than `max`, found by counting brackets outside strings: a
 * loop, so a document a million levels deep costs a pass over its text, never the stack.
 */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // the escaped character cannot end the string
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
const CONTROLS_BUT_TAB_LF = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** A lone surrogate (a JSON "\ud800" escape) cannot be stored as UTF-8: it becomes U+FFFD. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The first `max` code points of `s`, so a cut never splits a surrogate pair. */
function firstCodePoints(s: string, max: number): string | null {
  if (s.length <= max) return null; // UTF-16 units are at least as many as code points
  let points = 0;
  for (let i = 0; i < s.length; i++) {
    if (points === max) return s.slice(0, i);
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) i++;
    points++;
  }
  return null;
}

export class Normaliser {
  readonly warnings: string[] = [];
  private omitted = 0;

  warn(message: string) {
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(message);
    else this.omitted++;
  }

  finishWarnings(): string[] {
    if (this.omitted) this.warnings.push(`${this.omitted} more warnings omitted`);
    return this.warnings;
  }

  /** Control characters removed (description keeps line breaks and tabs), trimmed, capped. */
  text(raw: string, field: string, max: number, multiline = false): string {
    let s = raw.replace(LONE_SURROGATE, '\uFFFD');
    if (multiline) s = s.replace(/\r\n?/g, '\n');
    const cleaned = s.replace(multiline ? CONTROLS_BUT_TAB_LF : CONTROLS, '');
    if (cleaned.length !== s.length) this.warn(`${field}: control characters removed`);
    s = cleaned.trim();
    const cut = firstCodePoints(s, max);
    if (cut !== null) {
      this.warn(`${field}: cut to ${max} characters`);
      s = cut.trimEnd();
    }
    return s;
  }

  /** name and description: text (a number is taken as its text); empty is absent. */
  textField(doc: Record<string, Json>, key: string, max: number, multiline = false): string | null {
    const v = own(doc, key);
    if (v === undefined || v === null) return null;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (typeof v !== 'string') {
      this.warn(`${key}: not text, left out`);
      return null;
    }
    return this.text(v, key, max, multiline) || null;
  }

  /**
   * The first of `keys` holding a URL we can read (http(s), ipfs, ar, data:), as written. data:
   * URIs are bounded by the document size instead of maxUrl: on-chain images are often longer.
   */
  urlField(doc: Record<string, Json>, keys: readonly string[]): string | null {
    for (const key of keys) {
      const v = own(doc, key);
      if (v === undefined || v === null || v === '') continue;
      if (typeof v !== 'string') {
        this.warn(`${key}: not a URL, left out`);
        continue;
      }
      const url = v.trim();
      if (url === '') continue;
      if (!/^data:/i.test(url) && url.length > METADATA_LIMITS.maxUrl) {
        this.warn(`${key}: longer than ${METADATA_LIMITS.maxUrl} characters, left out`);
        continue;
      }
      const parsed = parseContentUri(url);
      if (parsed.ok && !url.startsWith('{')) return url;
      this.warn(`${key}: ${parsed.ok ? 'inline JSON is not a URL' : parsed.problem.message}, left out`);
    }
    return null;
  }
}

/** An own property only: a document's keys never reach Object.prototype's. */
const own = (o: Record<string, Json>, key: string): Json | undefined => (Object.hasOwn(o, key) ? o[key] : undefined);
const isObject = (v: Json | undefined): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A decimal number's text. Each digit run can be matched one way only: `\d+\.?\d*` could split a
 * run of digits at any point, so a trait value of 40,000 digits and a letter took 10 s of
 * backtracking on the event loop, 200,000 of them minutes.
 */
const DECIMAL = /^\s*-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** A finite number, or a string that is exactly a decimal number ("12", "-1.5e3"). */
function numericOf(v: Json): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && DECIMAL.test(v)) {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/**
 * `image`, else `image_url`, else `image_data`: raw SVG markup becomes a base64 data: URI. The SVG
 * is only encoded, never parsed or run; whoever displays it must do so as an image (an <img>
 * does not run its scripts).
 */
export function imageOf(doc: Record<string, Json>, n: Normaliser): string | null {
  const url = n.urlField(doc, ['image', 'image_url']);
  if (url !== null) return url;
  const data = own(doc, 'image_data');
  if (typeof data !== 'string' || data.trim() === '') return null;
  const svg = data.trim();
  if (/^data:/i.test(svg)) return n.urlField(doc, ['image_data']);
  if (!/<svg[\s>]/i.test(svg)) {
    n.warn('image_data: not SVG markup, left out');
    return null;
  }
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

const NUMERIC_DISPLAY_TYPES = new Set(['number', 'boost_number', 'boost_percentage']);
/** Unix seconds run to 1e11 in the year 5138; a larger timestamp was written in milliseconds. */
const MILLISECONDS_FROM = 1e11;

function attributeOf(item: Json, index: number, n: Normaliser): NormalisedAttribute | null {
  if (!isObject(item)) {
    n.warn(`attributes[${index}]: not an object, skipped`);
    return null;
  }
  // a value without trait_type is shown by OpenSea as a plain property: kept with type ''
  const rawType = own(item, 'trait_type');
  const traitType = typeof rawType === 'string' ? n.text(rawType, `attributes[${index}].trait_type`, METADATA_LIMITS.maxTraitType) : typeof rawType === 'number' && Number.isFinite(rawType) ? String(rawType) : '';
  const rawDisplay = own(item, 'display_type');
  const displayType = typeof rawDisplay === 'string' ? n.text(rawDisplay, `attributes[${index}].display_type`, METADATA_LIMITS.maxTraitType).toLowerCase() || null : null;
  const value = own(item, 'value');
  if (value === undefined || value === null || typeof value === 'object' || (typeof value === 'number' && !Number.isFinite(value))) {
    n.warn(`attributes[${index}]: no usable value, skipped`);
    return null;
  }
  const numeric = numericOf(value);
  if (displayType === 'date' && numeric !== null) {
    const seconds = Math.abs(numeric) >= MILLISECONDS_FROM ? Math.floor(numeric / 1000) : numeric;
    return { traitType, value: String(seconds), displayType, kind: 'DATE', numberValue: seconds };
  }
  // a number is a NUMBER whatever its display_type; a numeric string only when one asks for it
  if (numeric !== null && (typeof value === 'number' || (displayType !== null && NUMERIC_DISPLAY_TYPES.has(displayType)))) {
    const number = numeric === 0 ? 0 : numeric; // -0 is 0
    return { traitType, value: String(number), displayType, kind: 'NUMBER', numberValue: number };
  }
  const text = typeof value === 'string' ? n.text(value, `attributes[${index}].value`, METADATA_LIMITS.maxTraitValue) : String(value);
  return { traitType, value: text, displayType, kind: 'STRING', numberValue: null };
}

/**
 * `attributes` (or `traits`): an array of `{trait_type, value, display_type}`, or an object map
 * `{type: value}` as some collections write it. The first maxAttributes distinct pairs are kept:
 * the token still shows with the rest dropped.
 */
function attributesOf(doc: Record<string, Json>, n: Normaliser): NormalisedAttribute[] {
  const key = (own(doc, 'attributes') ?? null) !== null ? 'attributes' : 'traits';
  const raw = own(doc, key);
  if (raw === undefined || raw === null) return [];
  let items: Json[];
  if (Array.isArray(raw)) items = raw;
  else if (isObject(raw)) items = Object.entries(raw).map(([trait_type, value]) => ({ trait_type, value }));
  else {
    n.warn(`${key}: neither a list nor an object, left out`);
    return [];
  }
  const attributes: NormalisedAttribute[] = [];
  const seen = new Set<string>();
  for (const [i, item] of items.entries()) {
    if (attributes.length === METADATA_LIMITS.maxAttributes) {
      n.warn(`${key}: only the first ${METADATA_LIMITS.maxAttributes} kept, items from [${i}] of ${items.length} dropped`);
      break;
    }
    const a = attributeOf(item, i, n);
    if (!a) continue;
    const pair = `${a.traitType}\u0000${a.value}`; // NUL was stripped from both, so this cannot collide
    if (seen.has(pair)) continue;
    seen.add(pair);
    attributes.push(a);
  }
  return attributes;
}

/**
 * A metadata document's bytes as a JSON object, bounded before it is parsed (size, UTF-8, depth):
 * the token's document and the collection's (contractURI) alike.
 */
export function parseMetadataDocument(bytes: Uint8Array): { ok: true; doc: Record<string, Json> } | { ok: false; code: MetadataProblemCode; message: string } {
  if (bytes.length > METADATA_LIMITS.maxDocumentBytes) return { ok: false, code: 'TOO_LARGE', message: `metadata is ${bytes.length} bytes, more than ${METADATA_LIMITS.maxDocumentBytes}` };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); // a leading BOM is skipped
  } catch {
    return { ok: false, code: 'INVALID_JSON', message: 'metadata is not UTF-8 text' };
  }
  if (nestsDeeperThan(text, METADATA_LIMITS.maxDepth)) return { ok: false, code: 'INVALID_METADATA', message: `metadata nests deeper than ${METADATA_LIMITS.maxDepth} levels` };
  let doc: Json;
  try {
    doc = JSON.parse(text) as Json; // JSON.parse defines "__proto__" as an own key, never a prototype
  } catch {
    return { ok: false, code: 'INVALID_JSON', message: 'metadata is not JSON' };
  }
  if (!isObject(doc)) return { ok: false, code: 'INVALID_METADATA', message: `metadata is ${Array.isArray(doc) ? 'a list' : doc === null ? 'null' : `a ${typeof doc}`}, not an object` };
  return { ok: true, doc };
}

export function normaliseMetadata(bytes: Uint8Array): Result {
  const parsed = parseMetadataDocument(bytes);
  if (!parsed.ok) return parsed;
  const doc = parsed.doc;
  const n = new Normaliser();
  const metadata: NormalisedMetadata = {
    name: n.textField(doc, 'name', METADATA_LIMITS.maxName),
    description: n.textField(doc, 'description', METADATA_LIMITS.maxDescription, true),
    image: imageOf(doc, n),
    animationUrl: n.urlField(doc, ['animation_url']),
    externalUrl: n.urlField(doc, ['external_url', 'external_link']),
    attributes: attributesOf(doc, n),
    warnings: [],
  };
  metadata.warnings = n.finishWarnings();
  return { ok: true, metadata };
}
