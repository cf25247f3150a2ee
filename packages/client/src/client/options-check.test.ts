import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, LeaseholdError } from '../core/errors/index.js';
import { Leasehold, type LeaseholdOptions } from '../index.js';

const VALID: LeaseholdOptions = { baseUrl: 'https://api.leasehold.test/api', apiKey: 'lh_test_admin' };

/** Every bad option is refused at construction, naming the option and showing the value. */
describe('new Leasehold(options) validates every option at construction', () => {
  it.each<[string, Partial<Record<keyof LeaseholdOptions, unknown>>, string, RegExp]>([
    ['baseUrl without a scheme', { baseUrl: '127.0.0.1:4010' }, 'baseUrl', /baseUrl must be an absolute http\(s\) URL.*got "127\.0\.0\.1:4010"/],
    ['baseUrl host:port', { baseUrl: 'localhost:4010' }, 'baseUrl', /got "localhost:4010"/],
    ['baseUrl ftp', { baseUrl: 'ftp://host/api' }, 'baseUrl', /got "ftp:\/\/host\/api"/],
    ['baseUrl with a query', { baseUrl: 'https://host/api?x=1' }, 'baseUrl', /got "https:\/\/host\/api\?x=1"/],
    ['baseUrl relative', { baseUrl: '/api' }, 'baseUrl', /got "\/api"/],
    ['baseUrl empty', { baseUrl: '' }, 'baseUrl', /got ""/],
    ['baseUrl missing', { baseUrl: undefined }, 'baseUrl', /got undefined/],
    ['baseUrl a URL object', { baseUrl: new URL('https://host') }, 'baseUrl', /baseUrl/],
    ['apiKey missing', { apiKey: undefined }, 'apiKey', /apiKey is required/],
    ['apiKey with a line break', { apiKey: 'lh_test_admin\r\nX-Evil: 1' }, 'apiKey', /apiKey must be visible ASCII.*not shown/],
    ['maxRetries negative', { maxRetries: -3 }, 'maxRetries', /maxRetries must be a non-negative integer; got -3/],
    ['maxRetries fractional', { maxRetries: 1.5 }, 'maxRetries', /got 1\.5/],
    ['maxRetries NaN', { maxRetries: Number.NaN }, 'maxRetries', /got NaN/],
    ['maxRetries a string', { maxRetries: '2' }, 'maxRetries', /got "2"/],
    ['timeoutMs zero', { timeoutMs: 0 }, 'timeoutMs', /timeoutMs must be a positive number.*got 0/],
    ['timeoutMs negative', { timeoutMs: -1 }, 'timeoutMs', /got -1/],
    ['heartbeatTtlSeconds too short', { heartbeatTtlSeconds: 1 }, 'heartbeatTtlSeconds', /between 5 and 600; got 1/],
    ['heartbeatTtlSeconds NaN', { heartbeatTtlSeconds: Number.NaN }, 'heartbeatTtlSeconds', /got NaN/],
    ['session empty', { session: '' }, 'session', /1–200 characters; got ""/],
    ['session too long', { session: 's'.repeat(201) }, 'session', /session/],
    ['session with a line break', { session: 'sess\nX: 1' }, 'session', /visible ASCII/],
    ['session non-ASCII', { session: 'sessión' }, 'session', /visible ASCII/],
    ['fetch not a function', { fetch: 'fetch' }, 'fetch', /fetch must be a function/],
    ['dispatcher without dispatch()', { dispatcher: {} }, 'dispatcher', /undici Dispatcher/],
    ['idempotencyStore without put()', { idempotencyStore: { get() {}, delete() {} } }, 'idempotencyStore', /with put\(\)/],
    ['logger.warn not a function', { logger: { warn: 'loud' } }, 'logger.warn', /logger\.warn must be a function/],
    ['hooks not an object', { hooks: 5 }, 'hooks', /hooks must be an object; got 5/],
    ['userAgent with a line break', { userAgent: 'me/1\r\n' }, 'userAgent', /visible ASCII/],
    ['renewal.jitter 1', { renewal: { jitter: 1 } }, 'renewal.jitter', /from 0 to under 1; got 1/],
    ['renewal.attemptTimeoutMs zero', { renewal: { attemptTimeoutMs: 0 } }, 'renewal.attemptTimeoutMs', /got 0/],
    ['renewal.timers incomplete', { renewal: { timers: { setTimeout } } }, 'renewal.timers', /setTimeout\(\) and clearTimeout\(\)/],
    ['renewal.maxClaimIdsPerHeartbeat too many', { renewal: { maxClaimIdsPerHeartbeat: 10_001 } }, 'renewal.maxClaimIdsPerHeartbeat', /1 to 10000; got 10001/],
  ])('%s', (_, override, param, message) => {
    let thrown: unknown;
    try {
      new Leasehold({ ...VALID, ...override } as LeaseholdOptions);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidArgumentError);
    expect(thrown).toBeInstanceOf(LeaseholdError);
    expect(thrown).toMatchObject({ name: 'InvalidArgumentError', param });
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).not.toContain('lh_test_admin');
  });

  it('options that are not an object', () => {
    expect(() => new Leasehold(undefined as unknown as LeaseholdOptions)).toThrow(InvalidArgumentError);
    expect(() => new Leasehold(null as unknown as LeaseholdOptions)).toThrow(InvalidArgumentError);
  });

  it.each<[string, Partial<LeaseholdOptions>]>([
    ['the minimum', {}],
    ['http with a port and a prefix', { baseUrl: 'http://127.0.0.1:4010/api/' }],
    ['every numeric option at its edge', { maxRetries: 0, timeoutMs: Number.POSITIVE_INFINITY, heartbeatTtlSeconds: 600 }],
    ['a session of 200 visible characters', { session: `s${'x'.repeat(198)}s` }],
  ])('accepts %s', async (_, override) => {
    const lh = new Leasehold({ ...VALID, ...override });
    await lh.close();
  });
});
