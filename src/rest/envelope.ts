// The v1 JSON envelope (spec 2.1, looksrare-v1-facts.md "Paths and envelope").
import type { FieldProblem } from '../domain/errors.js';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

export function ok(data: unknown, status = 200): Response {
  return new Response(JSON.stringify({ success: true, message: null, data }), { status, headers: JSON_HEADERS });
}

/** The success envelope around data that is already JSON text (the read engine's). */
export function okJson(dataJson: string, status = 200): Response {
  return new Response(`{"success":true,"message":null,"data":${dataJson}}`, { status, headers: JSON_HEADERS });
}

export function fail(status: number, message: string, errors?: FieldProblem[], headers: Record<string, string> = {}): Response {
  const body: Record<string, unknown> = { success: false, message, data: null };
  if (errors?.length) body.errors = errors;
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}
