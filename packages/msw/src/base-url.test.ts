import { describe, expect, it } from 'vitest';
import { baseUrlPattern, isUnderBase, parseBaseUrl, pathUnderBase } from './base-url.js';

/** MSW tests a RegExp handler path against origin + pathname (no query). */
const cleanUrl = (url: URL) => url.origin + url.pathname;

describe('parseBaseUrl', () => {
  it.each([
    { given: 'https://api.test', want: { href: 'https://api.test', origin: 'https://api.test', pathPrefix: '' } },
    { given: 'https://api.test/', want: { href: 'https://api.test', origin: 'https://api.test', pathPrefix: '' } },
    { given: 'https://API.test:443/api/', want: { href: 'https://api.test/api', origin: 'https://api.test', pathPrefix: '/api' } },
    { given: 'http://127.0.0.1:4010/a/b', want: { href: 'http://127.0.0.1:4010/a/b', origin: 'http://127.0.0.1:4010', pathPrefix: '/a/b' } },
    { given: new URL('https://api.test/v1'), want: { href: 'https://api.test/v1', origin: 'https://api.test', pathPrefix: '/v1' } },
  ])('normalizes $given', ({ given, want }) => {
    expect(parseBaseUrl(given)).toEqual(want);
  });

  it.each(['/api', 'api.test', 'ftp://api.test', 'https://api.test/api?x=1', 'https://api.test/#x'])('refuses %s', (given) => {
    expect(() => parseBaseUrl(given)).toThrow(TypeError);
  });
});

describe('which URLs lie under a base', () => {
  const table = [
    { base: 'https://api.test/api', url: 'https://api.test/api/v1/claims/heartbeat', want: '/v1/claims/heartbeat' },
    { base: 'https://api.test/api', url: 'https://api.test/api', want: '/' },
    { base: 'https://api.test/api', url: 'https://api.test/api/', want: '/' },
    { base: 'https://api.test/api', url: 'https://api.test/api/v1/x?prefix=a%2Fb', want: '/v1/x?prefix=a%2Fb' },
    { base: 'https://api.test/api', url: 'https://api.test/api2/v1/claims/heartbeat', want: undefined },
    { base: 'https://api.test/api', url: 'https://api.test/apiv1/claims', want: undefined },
    { base: 'https://api.test/api', url: 'https://api.test/API/v1/claims', want: undefined },
    { base: 'https://api.test/api', url: 'https://api.test/v1/claims/heartbeat', want: undefined },
    { base: 'https://api.test/api', url: 'http://api.test/api/v1/claims', want: undefined },
    { base: 'https://api.test/api', url: 'https://api.test:8443/api/v1/claims', want: undefined },
    { base: 'https://api.test/api', url: 'https://other.test/api/v1/claims', want: undefined },
    { base: 'https://api.test/v1', url: 'https://api.test/v10/claims', want: undefined },
    { base: 'https://api.test/v1', url: 'https://api.test/v1/v1/claims', want: '/v1/claims' },
    { base: 'https://api.test', url: 'https://api.test/v1/claims/heartbeat', want: '/v1/claims/heartbeat' },
    { base: 'https://api.test', url: 'https://api.test.evil/v1/claims', want: undefined },
    { base: 'https://api.test/a.b', url: 'https://api.test/aXb/v1/claims', want: undefined },
    { base: 'https://api.test/a+b', url: 'https://api.test/a+b/v1/claims', want: '/v1/claims' },
  ];

  it.each(table)('$url under $base → $want', ({ base, url, want }) => {
    const parsed = parseBaseUrl(base);
    const target = new URL(url);
    expect(pathUnderBase(parsed, target)).toBe(want);
    expect(isUnderBase(parsed, target)).toBe(want !== undefined);
    expect(baseUrlPattern(parsed).test(cleanUrl(target))).toBe(want !== undefined);
  });
});
