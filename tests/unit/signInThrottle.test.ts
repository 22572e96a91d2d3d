import { describe, expect, it } from 'vitest';
import { addressOf, delayMs, rulesFor, settle, tooManyAttempts, withFailure } from '../../server/identity/throttle.ts';

const settings = { freeFailures: 5, ipFreeFailures: 50, firstDelaySeconds: 1, maxDelaySeconds: 900, globalFailuresPerMinute: 120 };
const rules = rulesFor(settings);

describe('sign-in throttle rules', () => {
  it('waits 1 s after the free failures, doubling each time, never more than the maximum', () => {
    expect([0, 1, 2, 3, 9, 10, 11, 100].map((k) => delayMs(k, settings) / 1000)).toEqual([1, 2, 4, 8, 512, 900, 900, 900]);
  });

  it('blocks an e-mail only from its fifth failure on, and forgets failures after a day', () => {
    const t0 = Date.parse('2026-11-20T09:00:00Z');
    let c = { failures: 0, windowStart: t0, blockedUntil: null as number | null };
    for (let i = 0; i < 4; i++) c = withFailure(c, rules.account, settings, t0);
    expect(c.blockedUntil).toBeNull();
    c = withFailure(c, rules.account, settings, t0);
    expect(c.blockedUntil).toBe(t0 + 1000);
    expect(settle(c, rules.account, t0 + 500)).toBe(c);
    const later = t0 + 24 * 60 * 60 * 1000;
    expect(settle(c, rules.account, later)).toEqual({ failures: 0, windowStart: later, blockedUntil: null });
  });

  it('pauses everyone only until the end of the minute', () => {
    const t0 = Date.parse('2026-11-20T09:00:00Z');
    const c = withFailure({ failures: 119, windowStart: t0, blockedUntil: null }, rules.global, settings, t0 + 10_000);
    expect(c.blockedUntil).toBe(t0 + 60_000);
  });

  it('counts an IPv6 client by its /64 and an IPv4-mapped client by its IPv4 address', () => {
    expect(addressOf('203.0.113.7')).toBe('203.0.113.7');
    expect(addressOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressOf('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(addressOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressOf('::1')).toBe('0:0:0:0::/64');
    expect(addressOf(undefined)).toBe('unknown');
  });

  it('says how long to wait in words', () => {
    expect(tooManyAttempts(1)).toBe('Too many sign-in attempts. Try again in 1 second.');
    expect(tooManyAttempts(2000)).toBe('Too many sign-in attempts. Try again in 2 seconds.');
    expect(tooManyAttempts(59_001)).toBe('Too many sign-in attempts. Try again in 1 minute.');
    expect(tooManyAttempts(900_000)).toBe('Too many sign-in attempts. Try again in 15 minutes.');
  });
});
