import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildUrl, encodePath } from './build-url.js';
import { buildRequestHeaders } from './request-headers.js';
import { VERSION } from '../version.js';

describe('buildUrl', () => {
  it.each([
    ['https://h', '/v1/x', undefined, 'https://h/v1/x'],
    ['https://h/', 'v1/x', undefined, 'https://h/v1/x'],
    ['https://h/api', '/v1/x', undefined, 'https://h/api/v1/x'],
    ['https://h/api//', '/v1/x', { a: 1, b: undefined, c: null }, 'https://h/api/v1/x?a=1'],
    ['https://h', '/v1/x', { prefix: 'a b/&', ids: [1, 2], wait: true }, 'https://h/v1/x?prefix=a+b%2F%26&ids=1&ids=2&wait=true'],
    ['https://h', '/v1/x?fixed=1', { more: 2 }, 'https://h/v1/x?fixed=1&more=2'],
    ['https://h', '/v1/x', {}, 'https://h/v1/x'],
  ])('%s + %s + %o → %s', (base, path, query, want) => {
    expect(buildUrl(base, path, query)).toBe(want);
  });

  it('encodePath encodes each interpolated segment, slashes included', () => {
    expect(encodePath`/v1/spaces/${'6f1c'}/claims/${'reports/2026-11 ü?#'}/renew`).toBe('/v1/spaces/6f1c/claims/reports%2F2026-11%20%C3%BC%3F%23/renew');
    expect(encodePath`/v1/tasks/${42}`).toBe('/v1/tasks/42');
  });
});

describe('buildRequestHeaders', () => {
  it('layers defaults, client defaults, call headers; owns Authorization and Idempotency-Key', () => {
    const headers = buildRequestHeaders({
      apiKey: 'k',
      idempotencyKey: 'idem',
      hasBody: true,
      userAgentSuffix: 'my-worker/1.2',
      defaultHeaders: { 'X-Team': 'a', accept: 'application/json, */*' },
      headers: { 'x-team': 'b', 'Leasehold-Client': undefined, AUTHORIZATION: 'Bearer other', 'Idempotency-Key': 'other' },
    });
    expect(headers).toEqual({
      accept: 'application/json, */*',
      'User-Agent': expect.stringMatching(/^leasehold-client\/\d+\.\d+\.\d+ \(node\/[\d.]+; \w+ \w+\) my-worker\/1\.2$/),
      'Content-Type': 'application/json',
      'x-team': 'b',
      Authorization: 'Bearer k',
      'Idempotency-Key': 'idem',
    });
  });
});

describe('VERSION', () => {
  it('matches package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
