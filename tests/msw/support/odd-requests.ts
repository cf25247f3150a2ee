/**
 * Odd requests — repeated `Authorization` and `Content-Type` headers (as separate lines, or one
 * line with a comma), repeated headers the API reads as lists, and HEAD on every kind of path —
 * run against any transport. Every transport must answer them as node:http does.
 */
import type { SequenceControl, Step } from './scripted-sequence.js';

/** Sends one request with headers as ordered pairs (a name may repeat); `path` is relative to the base URL. */
export type SendPairs = (request: { method: string; path: string; headers: Array<[string, string]>; body?: string }) => Promise<{
  status: number;
  headers: Record<string, string>;
  body: string;
}>;

const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const SCOPE = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';
const KEPT_HEADERS = ['content-type', 'etag', 'allow', 'idempotent-replayed', 'retry-after'];

/** Runs the odd requests and returns their transcript (`base` as in `runScriptedSequence`). */
export async function runOddRequests(send: SendPairs, _control: SequenceControl, base: string): Promise<Step[]> {
  const steps: Step[] = [];
  const admin: [string, string] = ['authorization', 'Bearer lh_test_admin'];
  const json: [string, string] = ['content-type', 'application/json'];
  const call = async (step: string, method: string, path: string, headers: Array<[string, string]>, body?: unknown) => {
    const answer = await send({ method, path, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const kept: Record<string, string> = {};
    for (const name of KEPT_HEADERS) if (answer.headers[name] !== undefined) kept[name] = answer.headers[name] as string;
    kept['has request-id'] = String(answer.headers['request-id'] !== undefined);
    const parsed = answer.body === '' ? undefined : (JSON.parse(answer.body) as Record<string, unknown>);
    if (parsed && typeof parsed.doc_url === 'string' && parsed.doc_url.startsWith(`${base}/`)) parsed.doc_url = `<base>${parsed.doc_url.slice(base.length)}`;
    if (parsed && typeof parsed.request_id === 'string') parsed.request_id = parsed.request_id === answer.headers['request-id'] ? '<Request-Id>' : parsed.request_id;
    if (parsed && typeof parsed.error === 'object' && parsed.error !== null) {
      const error = parsed.error as Record<string, unknown>;
      if (error.requestId === answer.headers['request-id']) error.requestId = '<Request-Id>';
    }
    steps.push({ step, status: answer.status, headers: kept, body: parsed });
    return { ...answer, json: parsed };
  };
  const claims = `/v1/spaces/${SPACE}/claims`;
  const acquireBody = (key: string) => ({ key, scopeId: SCOPE, holder: 'odd', holderSession: 'sess_odd' });

  await call('two identical Authorization lines', 'POST', claims, [admin, admin, json, ['idempotency-key', 'odd-1']], acquireBody('a'));
  await call('two different Authorization lines', 'POST', claims, [admin, ['authorization', 'Bearer lh_test_other'], json, ['idempotency-key', 'odd-2']], acquireBody('a'));
  await call('one Authorization line with a comma', 'GET', claims, [['authorization', 'Bearer lh_test_admin, Bearer lh_test_other']]);
  await call('an unknown and a known key', 'GET', claims, [['authorization', 'Bearer lh_nope'], admin]);
  await call('two identical Content-Type lines', 'POST', claims, [admin, json, json, ['idempotency-key', 'odd-3']], acquireBody('b'));
  await call('one Content-Type line with two types', 'POST', claims, [admin, ['content-type', 'application/json, text/plain'], ['idempotency-key', 'odd-4']], acquireBody('b'));
  await call('a quoted comma in one Content-Type', 'POST', claims, [admin, ['content-type', 'application/json; x="a,b"'], ['idempotency-key', 'odd-5']], acquireBody('c'));
  await call('nothing was acquired by the refused requests', 'GET', claims, [admin]);
  await call('two Idempotency-Key lines make one key', 'POST', '/v1/tasks', [admin, json, ['idempotency-key', 'k1'], ['idempotency-key', 'k2']], { title: 't' });
  await call('the joined key replays', 'POST', '/v1/tasks', [admin, json, ['idempotency-key', 'k1, k2']], { title: 't' });
  const task = await call('a task to read', 'POST', '/v1/tasks', [admin, json, ['idempotency-key', 'odd-6']], { title: 'head' });
  const id = (task.json as { id: number }).id;
  await call('two If-Match lines are one list', 'POST', `/v1/tasks/${id}/claim`, [admin, ['if-match', '"task-0-v0"'], ['if-match', `"task-${id}-v1"`], ['idempotency-key', 'odd-7']]);
  await call('HEAD of a task', 'HEAD', `/v1/tasks/${id}`, [admin]);
  await call('HEAD of a missing task', 'HEAD', '/v1/tasks/999999', [admin]);
  await call('HEAD without a key', 'HEAD', `/v1/tasks/${id}`, []);
  await call('HEAD with two keys', 'HEAD', `/v1/tasks/${id}`, [admin, admin]);
  await call('HEAD of a POST-only path', 'HEAD', '/v1/claims/heartbeat', [admin]);
  await call('HEAD of no path', 'HEAD', '/v1/nothing/here', [admin]);
  await call('HEAD of the claim list', 'HEAD', claims, [admin]);
  await call('HEAD of the spec', 'HEAD', '/openapi.json', []);
  return steps;
}
