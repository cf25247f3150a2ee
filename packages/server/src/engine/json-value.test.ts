import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, jsonProblem } from './json-value.js';
import { RUN_A, SPACE, codeOf, errorOf, setup } from './test-fixtures.js';

/** `levels` nested arrays around 1, built without recursion. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('jsonProblem', () => {
  it('finds arrays and objects nested past the limit, and where, without descending further', () => {
    expect(jsonProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonProblem(nested(MAX_JSON_DEPTH + 1))).toEqual({ reason: 'too_deep', path: Array(MAX_JSON_DEPTH).fill(0) });
    expect(jsonProblem(nested(1_000_000))?.reason).toBe('too_deep');
    expect(jsonProblem({ a: [1, { b: nested(3) }] }, 3)).toEqual({ reason: 'too_deep', path: ['a', 1, 'b'] });
  });

  it('finds numbers JSON cannot carry back', () => {
    expect(jsonProblem({ n: [0, Infinity] })).toEqual({ reason: 'number_out_of_range', path: ['n', 1] });
    expect(jsonProblem({ n: -0, m: 1e308, s: 'Infinity', z: null })).toBeUndefined();
  });
});

describe('the engine refuses unstorable JSON from callers in process too', () => {
  it('on release, heartbeat, send and complete, changing nothing', () => {
    const f = setup();
    const claim = f.engine.claims.acquire({ credential: f.admin, spaceId: SPACE, key: 'k', scopeId: RUN_A, holder: 'w', holderSession: 's' });
    const deep = nested(MAX_JSON_DEPTH);
    expect(errorOf(() => f.engine.claims.release({ credential: f.admin, spaceId: SPACE, key: 'k', token: claim.token as string, observation: deep })))
      .toMatchObject({ code: 'json_too_deep', param: 'observation' });
    expect(f.engine.claims.get({ credential: f.admin, spaceId: SPACE, key: 'k' }).status).toBe('held');
    expect(codeOf(() => f.engine.heartbeat({ credential: f.admin, ttl: 30, details: { d: deep } }))).toBe('json_too_deep');
    f.engine.spools.createSpool({ credential: f.admin, name: 'billing' });
    f.engine.spools.putQueue({ credential: f.admin, spool: 'billing', queue: 'q', leaseTimeoutSeconds: 30 });
    expect(codeOf(() => f.engine.spools.send({ credential: f.admin, spool: 'billing', queue: 'q', body: deep }))).toBe('json_too_deep');
    expect(f.engine.spools.messageCount).toBe(0);
    const { task } = f.engine.tasks.create({ credential: f.admin, title: 't' });
    expect(codeOf(() => f.engine.tasks.complete({ credential: f.admin, taskId: task.id, ifMatch: '"task-1-v1"', result: { n: Infinity } }))).toBe('invalid_request');
    expect(f.engine.tasks.get({ credential: f.admin, taskId: task.id }).task.status).toBe('Todo');
  });
});
