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
    ['an unknown option (another SDK\'s name)', { retries: 5 } as never, 'retries', /unknown option retries \(did you mean maxRetries\?\)/],
    ['a misspelt option', { heartbeatTtlSecond: 30 } as never, 'heartbeatTtlSecond', /did you mean heartbeatTtlSeconds\?/],
    ['a miscased option', { apikey: 'x' } as never, 'apikey', /did you mean apiKey\?/],
    ['an unknown option close to nothing', { zzz: 1 } as never, 'zzz', /unknown option zzz \(valid ones: baseUrl, apiKey, .*renewal\)/],
    ['an unknown renewal option', { renewal: { jiter: 0 } } as never, 'renewal.jiter', /unknown option renewal\.jiter \(did you mean renewal\.jitter\?\)/],
    ['an unknown hook', { hooks: { onAttempt: () => {} } } as never, 'hooks.onAttempt', /did you mean hooks\.onAttempt(Start|End)\?/],
    ['baseUrl ending in /v1', { baseUrl: 'http://127.0.0.1:4010/v1' }, 'baseUrl', /must not end in \/v1.*\/v1\/v1\/.*pass "http:\/\/127\.0\.0\.1:4010"/],
    ['baseUrl ending in /v1/ after a prefix', { baseUrl: 'https://host/api/v1/' }, 'baseUrl', /pass "https:\/\/host\/api"/],
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

/** Ids the API takes as UUIDs are checked by the SDK, under the SDK's own parameter names. */
describe('space and run ids are checked before anything is sent', () => {
  const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
  const thrownBy = (make: () => unknown): unknown => {
    try {
      make();
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it.each<[string, (lh: Leasehold) => unknown, string, RegExp]>([
    ['a space id that is not a UUID', (lh) => lh.space('reports'), 'spaceId', /lh\.space: spaceId must be a UUID .*; got "reports"/],
    ['a run id that is not a UUID', (lh) => lh.space(SPACE).run('nightly-1', { holder: 'w' }), 'runId', /space\.run: runId must be a UUID .*; got "nightly-1"/],
    ['a run id with a bad variant', (lh) => lh.space(SPACE).run('0b7e4c6a-1f2d-4e3b-0a9c-5d6e7f8a9b0c', { holder: 'w' }), 'runId', /runId must be a UUID/],
    ['a run id that is not a string', (lh) => lh.space(SPACE).run(42 as unknown as string, { holder: 'w' }), 'runId', /got 42/],
  ])('%s', async (_, make, param, message) => {
    const sent: string[] = [];
    const lh = new Leasehold({ ...VALID, fetch: async (url) => (sent.push(String(url)), new Response(null, { status: 500 })) });
    const thrown = thrownBy(() => make(lh));
    expect(thrown).toBeInstanceOf(InvalidArgumentError);
    expect(thrown).toMatchObject({ param });
    expect((thrown as Error).message).toMatch(message);
    expect(sent).toEqual([]);
    await lh.close();
  });

  it('cancelRun checks its run id too (a rejected promise, nothing sent)', async () => {
    const sent: string[] = [];
    const lh = new Leasehold({ ...VALID, fetch: async (url) => (sent.push(String(url)), new Response(null, { status: 500 })) });
    await expect(lh.space(SPACE).cancelRun('run-1')).rejects.toMatchObject({ name: 'InvalidArgumentError', param: 'runId' });
    expect(sent).toEqual([]);
    await lh.close();
  });

  it('accepts UUIDs of any version and case, and the nil UUID', async () => {
    const lh = new Leasehold(VALID);
    for (const id of ['6F1C2B9E-8D4A-4C1E-9B7A-3E2F1D0C9B8A', '017f22e2-79b0-7cc3-98c4-dc0c0c07398f', '00000000-0000-0000-0000-000000000000']) {
      expect(lh.space(id).run(id, { holder: 'w' }).runId).toBe(id);
    }
    await lh.close();
  });
});
