import { parseJsonBody } from '../body.js';
import { validateRequest } from '../validation.js';
import type { Step } from './step.js';

/** Reads the JSON body (413/415/400) and validates path, query, headers and body against the spec (400). */
export const readInput: Step = (ctx) => {
  const route = ctx.route;
  if (route === undefined) return undefined;
  const request = ctx.request;
  const body = route.hasBody ? parseJsonBody(request) : undefined;
  ctx.input = validateRequest(route, { path: ctx.params, search: ctx.target.search, headers: request.headers, body });
  return undefined;
};
