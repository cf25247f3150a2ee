import type { ClientOperationId } from './operation-io.js';

/**
 * What each operation's success answer must look like for the client to use it: the statuses it
 * answers and the fields the client reads. `request()` checks the answer with one of these and
 * throws `UnexpectedResponseError` (naming the first problem) instead of handing on `null`, a
 * missing field or a `NaN`. They check what the client relies on, not the whole schema.
 */

/** The success answer as `request()` sees it. */
export interface Answer {
  status: number;
  data: unknown;
  headers: Readonly<Record<string, string>>;
}

/** Returns what is wrong with an answer, or `undefined` when it is usable. */
export type AnswerShape = (answer: Answer) => string | undefined;

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const positive = (value: unknown): value is number => finite(value) && value > 0;
const text = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** A JSON object body, with `checks` over its fields, on one of `statuses`. */
function objectAnswer(what: string, statuses: readonly number[], checks: ReadonlyArray<[string, (value: unknown, body: Fields) => boolean, string]> = []): AnswerShape {
  return ({ status, data }) => {
    if (!statuses.includes(status)) return `The ${what} answer has status ${status}; expected ${statuses.join(' or ')}.`;
    if (!isObject(data)) return `The ${what} answer carries no JSON object (got ${data === undefined ? 'an empty body' : JSON.stringify(data)?.slice(0, 40) ?? typeof data}).`;
    for (const [field, ok, want] of checks) if (!ok(data[field], data)) return `The ${what} answer's ${field} is not ${want}.`;
    return undefined;
  };
}

/** Any 2xx answer whose body (if any) the client does not read. */
export const anySuccess: AnswerShape = () => undefined;

/** Adds a required `ETag` header to a shape. */
function withEtag(what: string, shape: AnswerShape): AnswerShape {
  return (answer) => shape(answer) ?? (text(answer.headers.etag) ? undefined : `The ${what} answer carries no ETag.`);
}

/** `POST /claims`: 201 held or 202 queued, with the lease the client registers. */
export const claimGrant = objectAnswer('acquire', [201, 202], [
  ['claimId', text, 'a claim id'],
  ['token', text, 'a token'],
  ['status', (v) => v === 'held' || v === 'queued', '"held" or "queued"'],
  ['fence', (v, body) => (body.status === 'queued' ? v === null || finite(v) : finite(v)), 'a fence'],
  ['leaseSeconds', positive, 'a positive number of seconds'],
  ['expiresAt', finite, 'an epoch-ms number'],
]);

/** A claim row (read, renew): 200. */
export const claimRow = objectAnswer('claim', [200], [
  ['claimId', text, 'a claim id'],
  ['fence', (v) => v === null || finite(v), 'a fence or null'],
  ['leaseSeconds', positive, 'a positive number of seconds'],
]);

/** One page of claims: 200 `{ data: [...], nextCursor }`. */
export const claimList = objectAnswer('claim list', [200], [
  ['data', (v) => Array.isArray(v) && v.every(isObject), 'an array of claims'],
  ['nextCursor', (v) => v === null || typeof v === 'string', 'a cursor or null'],
]);

/** Release answers and the other bodies handed to the caller as they are: a JSON object on 200/201. */
export const objectBody = (what: string, statuses: readonly number[] = [200]): AnswerShape => objectAnswer(what, statuses);

/** The batch heartbeat: 200 `{ results: [{ claimId, status }] }`. */
export const heartbeatAnswer = objectAnswer('heartbeat', [200], [
  ['results', (v) => Array.isArray(v) && v.every((r) => isObject(r) && text(r.claimId) && typeof r.status === 'string'), 'a list of { claimId, status } acks'],
]);

/** A task (create 201, read/update/complete 200), with its ETag. */
export const taskAnswer = (statuses: readonly number[]): AnswerShape =>
  withEtag('task', objectAnswer('task', statuses, [['id', (v) => Number.isInteger(v), 'an integer task id']]));

/** A note on a task: 201, with the task's new ETag. */
export const taskNote = withEtag('note', objectAnswer('note', [201]));

/** A task claim: 200/201 with the lease the client registers, and the task's new ETag. */
export const taskClaimGrant = withEtag(
  'task claim',
  objectAnswer('task claim', [200], [
    ['claimId', text, 'a claim id'],
    ['token', text, 'a token'],
    ['fence', finite, 'a fence'],
    ['leaseSeconds', positive, 'a positive number of seconds'],
    ['expiresUtc', text, 'an RFC 3339 time'],
  ]),
);

/** A task-claim renew: 200 with the new duration. */
export const taskClaimRenewal = withEtag(
  'task claim renew',
  objectAnswer('task claim renew', [200], [
    ['claimId', text, 'a claim id'],
    ['leaseSeconds', positive, 'a positive number of seconds'],
  ]),
);

/** `Spooler-Lease-Timeout`, when present, must be a positive number of seconds (absent: never expires). */
function leaseTimeoutProblem(headers: Readonly<Record<string, string>>, what: string): string | undefined {
  const raw = headers['spooler-lease-timeout'];
  if (raw === undefined) return undefined;
  return positive(Number(raw)) && raw.trim() !== '' ? undefined : `The ${what} answer's Spooler-Lease-Timeout is not a positive number of seconds.`;
}

/** A receive: 204 (empty queue), or 200 with the message, its `Spooler-Lease` and a valid timeout. */
export const receiveAnswer: AnswerShape = (answer) => {
  if (answer.status === 204) return undefined;
  const problem = objectAnswer('receive', [200], [
    ['id', text, 'a message id'],
    ['claimId', text, 'a claim id'],
    ['handle', text, 'a handle'],
    ['deliveryCount', finite, 'a number'],
  ])(answer);
  if (problem) return problem;
  if (!text(answer.headers['spooler-lease'])) return 'The receive answer carries no Spooler-Lease header.';
  return leaseTimeoutProblem(answer.headers, 'receive');
};

/** A spool-lease renew: any 2xx, with a valid timeout if it names one. */
export const spoolRenewal: AnswerShape = (answer) => leaseTimeoutProblem(answer.headers, 'renew');

/**
 * The shape each operation's success answer is checked against, keyed by operationId: one entry
 * per API operation of the spec (a new operation without one does not compile).
 */
export const answerShapes: Readonly<Record<ClientOperationId, AnswerShape>> = Object.freeze({
  heartbeatClaims: heartbeatAnswer,
  listSpaceClaims: claimList,
  acquireSpaceClaim: claimGrant,
  getSpaceClaim: claimRow,
  renewSpaceClaim: claimRow,
  releaseSpaceClaim: objectBody('release'),
  cancelScope: objectBody('run cancel'),
  listTasks: anySuccess,
  createTask: taskAnswer([201]),
  getTask: taskAnswer([200]),
  updateTask: taskAnswer([200]),
  addTaskNote: taskNote,
  claimTask: taskClaimGrant,
  renewTaskClaim: taskClaimRenewal,
  releaseTaskClaim: objectBody('task claim release'),
  completeTask: taskAnswer([200]),
  revokeTaskClaim: taskAnswer([200]),
  requeueTask: taskAnswer([200]),
  createSpool: objectBody('spool create', [201]),
  putQueue: objectBody('queue put', [200, 201]),
  sendMessage: objectBody('send', [201]),
  receiveMessage: receiveAnswer,
  renewSpoolLease: spoolRenewal,
  ackMessage: anySuccess,
  nackMessage: anySuccess,
  discardMessage: anySuccess,
  listSpaces: objectBody('space list'),
  getSpaceActivity: objectBody('space activity'),
  listQueueStats: objectBody('queue statistics'),
  getQueueActivity: objectBody('queue activity'),
  listLeaseEvents: objectBody('lease event list'),
  streamLeaseEvents: anySuccess,
  listSessions: objectBody('session list'),
});
