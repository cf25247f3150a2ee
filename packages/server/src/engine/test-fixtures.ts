import { ManualClock } from './clock.js';
import type { Caller, Credential } from './credentials.js';
import { Engine } from './engine.js';
import { EngineError, type ErrorCode } from './errors.js';
import { seededRandom } from './random.js';

/** Test-only: a fixed start time (2026-11-29T15:00:00Z). */
export const T0 = Date.UTC(2026, 10, 29, 15, 0, 0);
/** Test-only: a space id. */
export const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
/** Test-only: run ids. */
export const RUN_A = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';
/** Test-only: a second run id. */
export const RUN_B = '1c8f5d7b-2a3e-4f4c-9bad-6e7f8a9b0c1d';

/** Test-only: an engine on a manual clock with seeded randomness and the demo keys. */
export function setup(seed = 1): {
  engine: Engine;
  clock: ManualClock;
  admin: Credential;
  reader: Credential;
  other: Credential;
} {
  const clock = new ManualClock(T0);
  const engine = new Engine({ clock, random: seededRandom(seed) });
  return {
    engine,
    clock,
    admin: login(engine, 'lh_test_admin'),
    reader: login(engine, 'lh_test_reader'),
    other: login(engine, 'lh_test_other'),
  };
}

/** Test-only: authenticate a key or fail. */
export function login(engine: Engine, apiKey: string): Credential {
  const auth = engine.authenticate(`Bearer ${apiKey}`);
  if (!auth.ok) throw new Error(`cannot log in with ${apiKey}`);
  return auth.credential;
}

/** Test-only: a caller of `acct_demo` with its own credential id. */
export function caller(credentialId: string, accountId = 'acct_demo'): Caller {
  return { credentialId, accountId, spaces: '*' };
}

/** Test-only: run `fn` and answer the code of the EngineError it throws. */
export function codeOf(fn: () => unknown): ErrorCode | 'no error' {
  try {
    fn();
  } catch (error) {
    if (error instanceof EngineError) return error.code;
    throw error;
  }
  return 'no error';
}

/** Test-only: run `fn` and answer the EngineError it throws. */
export function errorOf(fn: () => unknown): EngineError {
  try {
    fn();
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw error;
  }
  throw new Error('expected an EngineError');
}
