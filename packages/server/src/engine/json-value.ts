import { EngineError } from './errors.js';

/**
 * How deeply a request body may nest arrays and objects, counting the body itself (`{}` is one
 * level, `{"a":[1]}` two). The JSON values the API stores and answers again later — a release
 * `observation`, heartbeat `details`, a message `body`, a task `result` — sit inside a body, so
 * they nest at most one level less. The bound keeps every answer that carries them serializable
 * (V8's `JSON.stringify` overflows its stack a few thousand levels down) and storable as
 * PostgreSQL `jsonb`, so a write that was accepted can always be answered and read back.
 */
export const MAX_JSON_DEPTH = 64;

/** What makes a parsed JSON value unstorable, and where: the path of keys and indexes to it. */
export interface JsonProblem {
  reason: 'too_deep' | 'number_out_of_range';
  path: Array<string | number>;
}

/**
 * The first reason `value` (as `JSON.parse` returns it) cannot be stored and answered again:
 * arrays and objects nested deeper than `maxDepth`, or a number outside the range of a double
 * (`JSON.parse('1e400')` is `Infinity`, which JSON cannot carry back). `undefined` when none.
 * The walk descends at most `maxDepth + 1` levels, however deep the value is.
 */
export function jsonProblem(value: unknown, maxDepth: number = MAX_JSON_DEPTH): JsonProblem | undefined {
  const path: Array<string | number> = [];
  const walk = (node: unknown, depth: number): JsonProblem['reason'] | undefined => {
    if (typeof node === 'number') return Number.isFinite(node) ? undefined : 'number_out_of_range';
    if (node === null || typeof node !== 'object') return undefined;
    if (depth >= maxDepth) return 'too_deep';
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        path.push(i);
        const reason = walk(node[i], depth + 1);
        if (reason !== undefined) return reason;
        path.pop();
      }
      return undefined;
    }
    for (const key in node) {
      path.push(key);
      const reason = walk((node as Record<string, unknown>)[key], depth + 1);
      if (reason !== undefined) return reason;
      path.pop();
    }
    return undefined;
  };
  const reason = walk(value, 0);
  return reason === undefined ? undefined : { reason, path };
}

/** A human-readable description of a problem found by `jsonProblem`, naming `what` it is in. */
export function describeJsonProblem(problem: JsonProblem, what: string, maxDepth: number): string {
  const at = problem.path.length > 0 ? ` (at ${problem.path.slice(0, 6).join('.')}${problem.path.length > 6 ? '…' : ''})` : '';
  return problem.reason === 'too_deep'
    ? `${what} nests arrays and objects deeper than ${maxDepth} levels${at}.`
    : `${what} holds a number beyond ±1.8e308, which JSON cannot carry back${at}.`;
}

/**
 * A JSON value the engine will store and answer again (observation, details, message body,
 * task result), else `json_too_deep` or `invalid_request` naming `param`. Over HTTP the body
 * reader has already refused such input; this guards callers of the engine in process.
 */
export function requireStorableJson<T>(value: T, param: string): T {
  const limit = MAX_JSON_DEPTH - 1;
  const problem = jsonProblem(value, limit);
  if (problem === undefined) return value;
  const code = problem.reason === 'too_deep' ? 'json_too_deep' : 'invalid_request';
  throw new EngineError(code, describeJsonProblem(problem, param, limit), param);
}
