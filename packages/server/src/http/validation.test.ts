import { describe, expect, it } from 'vitest';
import { HttpError } from './http-error.js';
import { routeSpecs } from './routes.js';
import { validateRequest } from './validation.js';

/** The problems `validateRequest` reports for `body` on `route` (an empty list when it passes). */
function problemsOf(route: (typeof routeSpecs)[number], body: unknown): Array<{ code?: string; message: string; param?: string }> {
  try {
    validateRequest(route, { path: {}, search: '', headers: {}, body });
    return [];
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return (error.errors ?? []) as Array<{ code?: string; message: string; param?: string }>;
  }
}

describe('validateRequest', () => {
  const withBodies = routeSpecs.filter((route) => route.hasBody);

  it('has operations with bodies to check', () => {
    expect(withBodies.length).toBeGreaterThan(10);
  });

  // Every body refuses a field it does not define in the same words, whether the spec writes it as
  // an object with properties or as one that takes no fields at all (claimTask's `{}`).
  it.each(withBodies.map((route) => [route.operationId, route] as const))('%s: an unknown body field is "Unknown field: <name>."', (_id, route) => {
    const unknown = problemsOf(route, { zz_not_a_field: 1 }).filter((problem) => problem.param === 'zz_not_a_field');
    expect(unknown).toEqual([{ code: 'unrecognized_keys', message: 'Unknown field: zz_not_a_field.', param: 'zz_not_a_field' }]);
  });
});
