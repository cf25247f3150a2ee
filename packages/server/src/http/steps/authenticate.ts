import type { AuthResult, Permission, RateDecision } from '../../engine/index.js';
import type { Store } from '../../store/operations.js';
import { HttpError } from '../http-error.js';
import type { Step } from './step.js';

/** Authenticates the caller through the store (401/402/403 refusals); the test controls take no key. */
export function authenticate(store: Store): Step {
  const admit = (auth: AuthResult) => {
    if (!auth.ok) throw new HttpError(auth.status, auth.code ?? undefined, auth.message);
    return auth;
  };
  return (ctx) => {
    if (ctx.route?.isControl) return undefined;
    const header = ctx.request.headers.authorization;
    // Adapters join a repeated header with ", " (as Fetch does), and no Bearer credential holds a
    // comma: which of several credentials was meant is unknowable, so none is tried.
    if (header !== undefined && header.includes(',')) {
      throw new HttpError(
        400,
        'ambiguous_header',
        'Send Authorization exactly once: this request carries several values (a repeated header, or a comma).',
        'Authorization',
      );
    }
    const auth = store.authenticate(header);
    if (auth instanceof Promise) {
      return auth.then((settled) => {
        ctx.credential = admit(settled).credential;
        return undefined;
      });
    }
    ctx.credential = admit(auth).credential;
    return undefined;
  };
}

/** Takes one request from the caller's rate limit (429 with `Retry-After`). */
export function rateLimit(store: Store): Step {
  const check = (rate: RateDecision) => {
    if (!rate.allowed) {
      throw new HttpError(429, 'rate_limited', 'Too many requests for this API key.', undefined, undefined, {
        'Retry-After': String(rate.retryAfterSeconds),
      });
    }
    return undefined;
  };
  return (ctx) => {
    if (ctx.credential === undefined) return undefined;
    const rate = store.checkRateLimit(ctx.credential);
    return rate instanceof Promise ? rate.then(check) : check(rate);
  };
}

/** The operation's permission (`x-permission`): 403 `permission_denied` without it. */
export const authorize: Step = (ctx) => {
  const permission = ctx.route?.permission as Permission | undefined;
  if (ctx.credential !== undefined && permission !== undefined && !ctx.credential.permissions.has(permission)) {
    throw new HttpError(403, 'permission_denied', `This API key lacks the ${permission} permission.`);
  }
  return undefined;
};
