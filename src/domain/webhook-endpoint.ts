// Webhook endpoints (docs/webhooks.md): which targets may be registered, which resolved
// addresses a delivery may connect to, and the retry schedule. Pure rules; the sender and the
// endpoint service apply them. Address ranges are held in node's BlockList (a data structure, no
// I/O), so no hand-written CIDR maths.
import { BlockList, isIP } from 'node:net';
import { badRequest, type FieldProblem } from './errors.js';
import type { RetrySchedule } from './retry-schedule.js';

export const WEBHOOK_STATUSES = ['ACTIVE', 'PAUSED', 'DISABLED'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** Longest URL accepted. */
const MAX_URL_LENGTH = 2048;

/**
 * Loopback, private, link-local, unique-local, CGNAT, "this network", multicast and reserved
 * ranges (RFC 6890): a webhook is an outbound request the server makes for a client, and these
 * reach the server's own network rather than the client's receiver.
 */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['100::', 64],
] as const) PRIVATE.addSubnet(net, bits, 'ipv6');

/** An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is the IPv4 address it maps. */
const mappedV4 = (ip: string) => /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];

/** True for an address a webhook must not reach unless WEBHOOK_ALLOW_PRIVATE_TARGETS is set. */
export function isPrivateAddress(ip: string): boolean {
  const v4 = mappedV4(ip);
  if (v4) return PRIVATE.check(v4, 'ipv4');
  const family = isIP(ip);
  if (family === 0) return true; // not an address: refuse rather than guess
  return PRIVATE.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * A target URL as registered: http(s), no credentials, no fragment; a literal private address
 * (or `localhost`) refused unless allowed. Names are checked again when they resolve, at each
 * delivery (a name can point anywhere later).
 */
export function parseWebhookUrl(value: string, allowPrivate: boolean, field = 'url'): string {
  const problem = (message: string): never => {
    throw badRequest([{ field, code: 'BAD_REQUEST', message } satisfies FieldProblem]);
  };
  if (value.length > MAX_URL_LENGTH) problem(`longer than ${MAX_URL_LENGTH} characters`);
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return problem('not an absolute URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') problem('only http and https targets are delivered to');
  if (u.username || u.password) problem('credentials in the URL are not accepted (put a token in the path or query)');
  if (u.hash) problem('a fragment is never sent; leave it out');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate) {
    if (isIP(host) && isPrivateAddress(host)) problem('the target is a loopback, private, link-local or unique-local address');
    if (host === 'localhost' || host.endsWith('.localhost')) problem('the target is a loopback name');
  }
  return u.toString();
}

/** After this failure, is the endpoint given up on (DISABLED)? */
export const shouldDisable = (failures: number, s: RetrySchedule): boolean => failures >= s.disableAfterFailures;
