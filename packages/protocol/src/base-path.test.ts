import { describe, expect, it } from 'vitest';
import { Mounts, normalizeBasePath, trimTrailingSlashes } from './base-path.js';

describe('base paths', () => {
  it.each([
    ['/api/', '/api'],
    ['/api//', '/api'],
    ['/', ''],
    ['', ''],
    ['/a/b', '/a/b'],
  ])('trims %j to %j', (given, want) => {
    expect(trimTrailingSlashes(given)).toBe(want);
  });

  it('refuses a base path without a leading slash', () => {
    expect(() => normalizeBasePath('api')).toThrow(TypeError);
  });

  it.each([
    { path: '/api/v1/tasks', want: { mount: '/api', path: '/v1/tasks' } },
    { path: '/api', want: { mount: '/api', path: '/' } },
    { path: '/apiv1/tasks', want: { mount: '', path: '/apiv1/tasks' } },
    { path: '/v1/tasks', want: { mount: '', path: '/v1/tasks' } },
  ])('mounts / and /api: $path → $want', ({ path, want }) => {
    expect(new Mounts(['/', '/api/']).match(path)).toEqual(want);
  });

  it('answers undefined outside every mount', () => {
    expect(new Mounts(['/api']).match('/v1/tasks')).toBeUndefined();
  });
});
