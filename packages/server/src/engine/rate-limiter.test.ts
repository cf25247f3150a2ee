import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { RateLimiter } from './rate-limiter.js';

describe('RateLimiter', () => {
  it('allows a one-second burst, then asks to wait whole seconds', () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter(clock);
    for (let i = 0; i < 3; i++) expect(limiter.take('c', 3)).toEqual({ allowed: true });
    expect(limiter.take('c', 3)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock.advance(334);
    expect(limiter.take('c', 3)).toEqual({ allowed: true });
    expect(limiter.take('other', 3)).toEqual({ allowed: true });
  });

  it('rounds waits up to whole seconds of at least 1', () => {
    const clock = new ManualClock(0);
    const limiter = new RateLimiter(clock);
    expect(limiter.take('slow', 0.25)).toEqual({ allowed: true });
    expect(limiter.take('slow', 0.25)).toEqual({ allowed: false, retryAfterSeconds: 4 });
    clock.advance(3500);
    expect(limiter.take('slow', 0.25)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock.advance(500);
    expect(limiter.take('slow', 0.25)).toEqual({ allowed: true });
  });

  it('never limits a credential without a rate', () => {
    const limiter = new RateLimiter(new ManualClock(0));
    for (let i = 0; i < 100; i++) expect(limiter.take('c', null).allowed).toBe(true);
  });
});
