// The v1 JSON envelope (spec 2.1, looksrare-v1-facts.md "Paths and envelope").
import type { FieldProblem } from '../domain/errors.js';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A REST answer before it is a Response. The read lane (src/http/read-lane.ts) writes it to
 * node:http as it is; yoga's path makes it a Response (toResponse). Building a WHATWG Response
 * and reading its text back cost the lane about a sixth of its time per GET.
 */
export interface RestReply {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export function ok(data: unknown, status = 200): RestReply {
  return { status, body: JSON.stringify({ success: true, message: null, data }), headers: { 'content-type': JSON_CONTENT_TYPE } };
}

/** The success envelope around data that is already JSON text (the read engine's). */
export function okJson(dataJson: string, status = 200): RestReply {
  return { status, body: `{"success":true,"message":null,"data":${dataJson}}`, headers: { 'content-type': JSON_CONTENT_TYPE } };
}

export function fail(status: number, message: string, errors?: FieldProblem[], headers: Record<string, string> = {}): RestReply {
  const body: Record<string, unknown> = { success: false, message, data: null };
  if (errors?.length) body.errors = errors;
  return { status, body: JSON.stringify(body), headers: { 'content-type': JSON_CONTENT_TYPE, ...headers } };
}

export const toResponse = (reply: RestReply): Response => new Response(reply.body, { status: reply.status, headers: reply.headers });
