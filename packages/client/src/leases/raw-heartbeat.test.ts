import { describe, expect, it } from 'vitest';
// The heartbeat `ttl` is read with the protocol's one duration grammar (`lh.heartbeat()` applies its answer with it).
import { ttlSeconds } from '@leasehold/protocol';
import { grantDurationMs, serverRemainingMs } from './server-time.js';

describe('ttlSeconds', () => {
  it.each([
    { given: 30, want: 30 },
    { given: 2.5, want: 2.5 },
    { given: '30', want: 30 },
    { given: '1.5', want: 1.5 },
    { given: '30s', want: 30 },
    { given: '5m', want: 300 },
    { given: '1h', want: 3600 },
    { given: '1500ms', want: 1.5 },
    { given: '1m30s', want: 90 },
    { given: 'PT30S', want: 30 },
    { given: 'PT1M30S', want: 90 },
    { given: 'PT1H', want: 3600 },
    { given: 'PT', want: undefined },
    { given: '30 s', want: undefined },
    { given: '-5', want: undefined },
    { given: -5, want: undefined },
    { given: 'soon', want: undefined },
  ])('$given → $want', ({ given, want }) => {
    expect(ttlSeconds(given)).toBe(want);
  });
});

describe('grant durations from the server clock', () => {
  const date = { date: new Date(Date.UTC(2026, 0, 1, 0, 0, 0)).toUTCString() };
  const now = Date.UTC(2026, 0, 1, 0, 0, 0);

  it('a fresh answer keeps its nominal duration (counted from the send)', () => {
    expect(grantDurationMs(30_000, now + 10_000, date, false)).toBe(30_000);
  });

  it('a replayed answer is cut to what the server says is left, less the Date header’s second', () => {
    expect(serverRemainingMs(now + 10_000, date)).toBe(9_000);
    expect(grantDurationMs(30_000, now + 10_000, date, true)).toBe(9_000);
    expect(grantDurationMs(30_000, now - 5_000, date, true)).toBe(0);
  });

  it('without a Date header or an expiry, the nominal duration stands; null stays null', () => {
    expect(grantDurationMs(30_000, now + 10_000, {}, true)).toBe(30_000);
    expect(grantDurationMs(30_000, undefined, date, true)).toBe(30_000);
    expect(grantDurationMs(null, now + 10_000, date, true)).toBeNull();
  });
});
