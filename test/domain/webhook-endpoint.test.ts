// The webhook rules without I/O: which targets are private, which URLs register, and the retry
// schedule (about a day from the first failure to DISABLED with the default settings).
import { describe, expect, it } from 'vitest';
import { isPrivateAddress, parseWebhookUrl, shouldDisable } from '../../src/domain/webhook-endpoint.js';
import { retryDelayMs } from '../../src/domain/retry-schedule.js';
import { loadConfig } from '../../src/config.js';

describe('webhook endpoint rules', () => {
  it('private, loopback, link-local and unique-local addresses, IPv4-mapped included', () => {
    for (const ip of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip']) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
    for (const ip of ['8.8.8.8', '172.32.0.1', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPrivateAddress(ip), ip).toBe(false);
  });

  it('registers http(s) URLs only, without credentials or fragments, and private literals only when allowed', () => {
    expect(parseWebhookUrl('https://hooks.example.com/a?b=1', false)).toBe('https://hooks.example.com/a?b=1');
    for (const bad of ['ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'https://u:p@example.com/', 'https://example.com/#x', 'http://127.0.0.1/', 'http://[::1]/', 'http://localhost:8080/', 'http://api.localhost/', `https://example.com/${'a'.repeat(2100)}`]) {
      expect(() => parseWebhookUrl(bad, false), bad).toThrow();
    }
    expect(parseWebhookUrl('http://127.0.0.1:9000/hook', true)).toBe('http://127.0.0.1:9000/hook');
  });

  it('backs off from 30 s doubling to one hour, spread 75-125 %, and disables after about a day', () => {
    const { webhooks } = loadConfig({});
    const s = { firstMs: webhooks.retryFirstMs, maxMs: webhooks.retryMaxMs, disableAfterFailures: webhooks.disableAfterFailures };
    expect([1, 2, 3, 8, 29].map((n) => retryDelayMs(n, s, 0.5))).toEqual([30_000, 60_000, 120_000, 3_600_000, 3_600_000]);
    expect(retryDelayMs(1, s, 0)).toBe(22_500);
    expect(retryDelayMs(1, s, 0.999999)).toBe(37_500);
    let total = 0;
    let n = 0;
    while (!shouldDisable(++n, s)) total += retryDelayMs(n, s, 0.5);
    expect(n).toBe(30);
    expect(total / 3_600_000).toBeGreaterThan(20);
    expect(total / 3_600_000).toBeLessThan(28);
  });
});
