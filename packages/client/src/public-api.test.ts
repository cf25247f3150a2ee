import { describe, expect, it } from 'vitest';
import * as sdk from './index.js';
import { AbortError, ClientClosedError, GoneError, InvalidArgumentError, Leasehold, LeaseholdError, LeaseLostError, UnusableLeaseError } from './index.js';

describe('public surface (runtime)', () => {
  it('re-exports every error class of the core', async () => {
    const core = await import('./core/errors/index.js');
    for (const [name, value] of Object.entries(core)) {
      if (typeof value === 'function' && /Error$/.test(name)) expect(sdk[name as keyof typeof sdk], name).toBe(value);
    }
    for (const Err of [GoneError, AbortError, LeaseLostError, UnusableLeaseError, ClientClosedError]) expect(new Err('x' as never, 'y' as never, 0 as never)).toBeInstanceOf(LeaseholdError);
  });

  it('validates its options and makes a sess_ session per client', () => {
    expect(() => new Leasehold({ baseUrl: '', apiKey: 'k' })).toThrow(InvalidArgumentError);
    expect(() => new Leasehold({ baseUrl: 'http://h', apiKey: '' })).toThrow(InvalidArgumentError);
    expect(() => new Leasehold({ baseUrl: 'http://h', apiKey: 'k', heartbeatTtlSeconds: 2 })).toThrow(InvalidArgumentError);
    const a = new Leasehold({ baseUrl: 'http://h', apiKey: 'k' });
    const b = new Leasehold({ baseUrl: 'http://h', apiKey: 'k' });
    expect(a.session).toMatch(/^sess_[0-9a-f]{32}$/);
    expect(a.session).not.toBe(b.session);
    expect(a.heartbeatTtlSeconds).toBe(30);
    expect(new Leasehold({ baseUrl: 'http://h', apiKey: 'k', session: 'sess_fixed' }).session).toBe('sess_fixed');
    return Promise.all([a.close(), b.close()]);
  });
});
