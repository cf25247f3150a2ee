import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createLeaseholdHandlers } from './create-handlers.js';
import { leaseholdError } from './error-response.js';
import type { components } from '@leasehold/protocol';
import { acquire, call, heartbeat, SPACE } from './test-kit.js';
import {
  createLeaseholdHttp,
  leaseholdHttp,
  type LeaseholdPath,
  type LeaseholdPathParams,
  type LeaseholdOperation,
  type LeaseholdRequestBody,
  type LeaseholdResponseBody,
} from './typed-http.js';

type Schemas = components['schemas'];

describe('types inferred from the spec', () => {
  it('offers only the paths that have the method', () => {
    expectTypeOf<'/v1/claims/heartbeat'>().toExtend<LeaseholdPath<'post'>>();
    expectTypeOf<'/v1/claims/heartbeat'>().not.toExtend<LeaseholdPath<'get'>>();
    expectTypeOf<'/v1/tasks/{taskId}'>().toExtend<LeaseholdPath<'patch'>>();
    expectTypeOf<'/_control/clock'>().not.toExtend<LeaseholdPath<'get'>>();
  });

  it('types params as strings, the request body and every answer body', () => {
    type Acquire = LeaseholdOperation<'post', '/v1/spaces/{spaceId}/claims'>;
    expectTypeOf<LeaseholdPathParams<Acquire>>().toEqualTypeOf<{ spaceId: string }>();
    expectTypeOf<LeaseholdPathParams<LeaseholdOperation<'get', '/v1/tasks/{taskId}'>>>().toEqualTypeOf<{ taskId: string }>();
    expectTypeOf<LeaseholdRequestBody<Acquire>>().toEqualTypeOf<Schemas['AcquireClaimRequest']>();
    expectTypeOf<LeaseholdRequestBody<LeaseholdOperation<'get', '/v1/tasks/{taskId}'>>>().toEqualTypeOf<undefined>();
    expectTypeOf<LeaseholdResponseBody<Acquire>>().toEqualTypeOf<Schemas['Claim'] | Schemas['ErrorEnvelope']>();
    expectTypeOf<LeaseholdResponseBody<LeaseholdOperation<'post', '/v1/spools/{spool}/ack'>>>().toEqualTypeOf<
      null | Schemas['ErrorEnvelope']
    >();
  });

  it('checks resolvers against the spec', () => {
    leaseholdHttp.post('/v1/claims/heartbeat', async ({ request, params }) => {
      expectTypeOf(params).toEqualTypeOf<Record<never, string>>();
      expectTypeOf(await request.json()).toEqualTypeOf<Schemas['HeartbeatRequest']>();
      return HttpResponse.json({ object: 'list', results: [] });
    });
    leaseholdHttp.get('/v1/spaces/{spaceId}/claims/{key}', ({ params }) => {
      expectTypeOf(params.key).toEqualTypeOf<string>();
      return leaseholdError(404, { code: 'claim_not_found' });
    });
    // @ts-expect-error a body the operation never answers
    leaseholdHttp.post('/v1/claims/heartbeat', () => HttpResponse.json({ nope: true }));
    // @ts-expect-error a path the spec does not have
    leaseholdHttp.post('/v1/nowhere', () => undefined);
  });
});

describe('typed overrides over the stateful handlers', () => {
  const base = 'https://api.test/api';
  const leasehold = createLeaseholdHandlers({ baseUrl: base });
  const mswServer = setupServer(...leasehold.handlers);
  beforeAll(() => mswServer.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => mswServer.resetHandlers());
  afterAll(() => mswServer.close());

  it('answers one call, then the stateful mock takes over again', async () => {
    mswServer.use(
      leasehold.http.post('/v1/claims/heartbeat', () => HttpResponse.json({ object: 'list', results: [{ claimId: 'clm_fake', status: 'lost' }] }), {
        once: true,
      }),
    );
    expect((await heartbeat(base)).body.results).toEqual([{ claimId: 'clm_fake', status: 'lost' }]);
    expect((await heartbeat(base)).body).toEqual({ object: 'list', results: [] });
  });

  it('gives typed params and body, and lets the request through when it returns nothing', async () => {
    const seen: Array<{ spaceId: string; key: string }> = [];
    mswServer.use(
      leasehold.http.post('/v1/spaces/{spaceId}/claims', async ({ request, params }) => {
        seen.push({ spaceId: params.spaceId, key: (await request.json()).key });
      }),
    );
    const answer = await acquire(base, 'reports/2026-11');
    expect(answer.status).toBe(201);
    expect(answer.body.key).toBe('reports/2026-11');
    expect(seen).toEqual([{ spaceId: SPACE, key: 'reports/2026-11' }]);
  });

  it('decodes percent-encoded path parameters', async () => {
    let key: string | undefined;
    mswServer.use(
      leasehold.http.get('/v1/spaces/{spaceId}/claims/{key}', ({ params }) => {
        key = params.key;
        return leaseholdError(404, { code: 'claim_not_found', message: 'free' });
      }),
    );
    const answer = await call('GET', `${base}/v1/spaces/${SPACE}/claims/${encodeURIComponent('a/b c')}`);
    expect(key).toBe('a/b c');
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ type: 'not_found_error', code: 'claim_not_found', message: 'free' });
    expect(answer.body.request_id).toBe(answer.headers.get('request-id'));
  });

  it('binds to a base URL; the unbound leaseholdHttp matches any origin and prefix', async () => {
    const other = createLeaseholdHttp({ baseUrl: 'https://elsewhere.test' });
    expect(other.pattern('/v1/tasks/{taskId}/claim')).toBe('https://elsewhere.test/v1/tasks/:taskId/claim');
    expect(leasehold.http.pattern('/v1/tasks/{taskId}')).toBe('https://api.test/api/v1/tasks/:taskId');
    expect(leaseholdHttp.pattern('/v1/tasks/{taskId}')).toBe('*/v1/tasks/:taskId');
    mswServer.use(
      other.post('/v1/claims/heartbeat', () => leaseholdError(500)),
      leaseholdHttp.post('/v1/claims/heartbeat', () => leaseholdError(503, { code: 'service_unavailable', retryAfterSeconds: 2 })),
    );
    const answer = await heartbeat(base);
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('2');
    expect(answer.body.type).toBe('unavailable_error');
  });

  it('leaseholdError is a Fetch Response with the JSON envelope, its length and the given headers, through a plain msw override too', async () => {
    const direct = leaseholdError(429, { code: 'rate_limited', message: 'slow — down', retryAfterSeconds: 3, headers: { 'X-Extra': '1' } });
    expect(direct).toBeInstanceOf(Response);
    expect(direct.status).toBe(429);
    expect(direct.headers.get('content-type')).toBe('application/json');
    const text = await direct.clone().text();
    expect(direct.headers.get('content-length')).toBe(String(new TextEncoder().encode(text).byteLength));
    expect(JSON.parse(text)).toMatchObject({ code: 'rate_limited', error: { code: 'rate_limited', message: 'slow — down' } });
    expect([direct.headers.get('retry-after'), direct.headers.get('x-extra')]).toEqual(['3', '1']);
    mswServer.use(http.post('*/v1/claims/heartbeat', () => leaseholdError(409, { code: 'claim_held' })));
    const answer = await heartbeat(base);
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ code: 'claim_held', request_id: answer.headers.get('request-id') });
  });

  it('refuses a base URL MSW would read as a pattern', () => {
    expect(() => createLeaseholdHttp({ baseUrl: 'https://api.test/(v)' })).toThrow(TypeError);
    expect(() => createLeaseholdHttp({ baseUrl: 'http://[::1]:4010' })).toThrow(TypeError);
  });
});
