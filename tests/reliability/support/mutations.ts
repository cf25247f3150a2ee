/**
 * Malformations for the bad-input suite: fast-check arbitraries that each turn a valid request
 * of an operation into one the server must refuse — whatever else is wrong with it. A request
 * gets one to three of them. `expect` is what the server must answer when the mutation is the
 * only one (the pipeline checks route, auth, permission, body, parameters, then the handler).
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { methodsAt, type OperationInfo, type PlainCall } from './world.js';

/** One malformation. */
export interface Mutation {
  name: string;
  apply(call: PlainCall): PlainCall;
  /** The status (and codes) when this mutation is the only one. */
  expect?: { status: number; codes?: Array<string | null> };
  /** Over real HTTP Node itself would refuse it before the server sees it (header > 16 KiB). */
  inProcessOnly?: boolean;
}

/** Keys of the suite's keys config with a standing other than valid. */
export const STANDING_KEYS = {
  expired: 'lh_fuzz_expired',
  blocked: 'lh_fuzz_blocked',
  suspended: 'lh_fuzz_suspended',
};

const HUGE_BODY = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
const PRINTABLE = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

const printable = (maxLength: number) => fc.string({ unit: fc.constantFrom(...PRINTABLE.split('')), maxLength });
const ident = fc.stringMatching(/^[a-z][a-z0-9_]{0,12}$/);

const withHeader = (name: string, value: string | undefined) => (call: PlainCall): PlainCall => {
  const headers = { ...call.headers };
  if (value === undefined) delete headers[name];
  else headers[name] = value;
  return { ...call, headers };
};

const bodyText = (call: PlainCall): string | undefined =>
  call.body === undefined ? undefined : typeof call.body === 'string' ? call.body : Buffer.from(call.body).toString('utf8');

/**
 * The body as a JSON object, when it still is one — and shallow enough to serialize again (a
 * mutation that nested a value thousands deep leaves the body to the others as it is).
 */
function bodyObject(call: PlainCall): Record<string, unknown> | undefined {
  try {
    const text = bodyText(call) ?? '';
    if (/[[{]{500}|(?:\{"k":\[){250}/.test(text)) return undefined;
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const setBody = (body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string | undefined> = {}) => (call: PlainCall): PlainCall => {
  const merged = { ...call.headers };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  if (merged['content-type'] === undefined && headers['content-type'] === undefined) merged['content-type'] = 'application/json';
  return { ...call, headers: merged, body };
};

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const bytes = (...parts: Array<string | number[]>): Uint8Array<ArrayBuffer> =>
  new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p)))));

/** Invalid values of each path parameter (percent-encoded as they go on the wire). */
const BAD_PATH: Record<string, string[]> = {
  spaceId: ['not-a-uuid', '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8', 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz', '%zz', '%C0%AF', '12345'],
  scopeId: ['run-1', '%zz', '00000000-0000-0000-0000-00000000000g'],
  key: [encodeURIComponent('k'.repeat(513)), '%zz', '%E0%80%80', '%', '%FF'],
  taskId: ['forty-two', '1.5', '-1', '0', '1e3', '0x10', '9007199254740992', '%zz', '99999999999999999999', '%2B1'],
  spool: ['bad%20name', 'a'.repeat(64), 'semi%3Bcolon', '%zz', '%C3%A9t%C3%A9', 'dot.name'],
  queue: ['bad%20queue', 'q'.repeat(64), '%zz', 'star*'],
  handle: ['nope', 'hdl_', 'hdl_%21%21%21%21%21%21%21%21', '%zz', 'msg_AAAAAAAA'],
  accountId: ['bad%20id', 'a'.repeat(65), '%zz', 'semi%3Bcolon', 'dot.id'],
  claimId: ['nope', 'clm_', 'clm_%21%21', '%zz', 'lht_abc'],
};

/** Well-formed values that name nothing (refused by the handler: 404/410, nothing changes). */
const MISSING_PATH: Record<string, string[]> = {
  taskId: ['999999'],
  spool: ['nosuchspool'],
  queue: ['nosuchqueue'],
  handle: ['hdl_AAAAAAAA0000'],
};

/**
 * Per operation: the body field whose JSON value the API stores and answers again later, and how
 * deep the body already is around it (`details` is an object inside the body).
 */
export const STORED_JSON: Record<string, { field: string; wrap: (value: string) => string }> = {
  releaseSpaceClaim: { field: 'observation', wrap: (value) => value },
  heartbeatClaims: { field: 'details', wrap: (value) => `{"progress":${value}}` },
  sendMessage: { field: 'body', wrap: (value) => value },
  completeTask: { field: 'result', wrap: (value) => value },
};

/** JSON text nesting `levels` arrays and objects (alternating when `mixed`) around a number. */
export function nestedJson(levels: number, mixed: boolean): string {
  let open = '';
  let close = '';
  for (let i = 0; i < levels; i++) {
    const object = mixed && i % 2 === 1;
    open += object ? '{"k":' : '[';
    close = (object ? '}' : ']') + close;
  }
  return `${open}1${close}`;
}

/** The keys no URL can address (URL parsers resolve `.`/`..` away; a lone surrogate has no UTF-8). */
export const UNADDRESSABLE_KEYS = ['.', '..', '\uD800', 'report\uDBFF', '\uDC00x', 'a\uDFFFb\uD800'];

/** Per operation: body fields and values each of which the schema (or the engine) refuses. */
const BAD_FIELDS: Record<string, { required: string[]; invalid: Record<string, unknown[]> }> = {
  heartbeatClaims: {
    // ttl may be left out or null (each lease renews for its own term); a negative or huge number is clamped.
    required: [],
    invalid: {
      ttl: ['soon', '1e3', true, {}, [], '', '30x', 'PT', '5 m'],
      holderSession: ['', 's'.repeat(201), 5, null],
      // claimId "" is no filter (the seed page's readers send it).
      claimId: [7, []],
      details: ['text', [], 5, { blob: 'x'.repeat(17 * 1024) }],
    },
  },
  acquireSpaceClaim: {
    required: ['key', 'scopeId', 'holder', 'holderSession'],
    invalid: {
      key: ['', 'k'.repeat(513), 5, null, ...UNADDRESSABLE_KEYS],
      scopeId: ['run-1', '', 5],
      holder: ['', 'h'.repeat(201), 1],
      holderSession: ['', 's'.repeat(201), {}],
      leaseSeconds: [4, 601, 'x', 5.5, null],
      wait: ['yes', 1, null],
    },
  },
  renewSpaceClaim: { required: ['token'], invalid: { token: ['', 5, null], leaseSeconds: [0, 601, '30', 1.5] } },
  releaseSpaceClaim: { required: ['token'], invalid: { token: ['', 5, null, []] } },
  createTask: { required: ['title'], invalid: { title: ['', 't'.repeat(501), 5, null], description: [5, 'd'.repeat(20_001), null] } },
  updateTask: { required: [], invalid: { status: ['Done', 'Paused', 5, null, 'todo'], title: ['', 5], description: [5, null] } },
  addTaskNote: { required: ['text'], invalid: { text: ['', 5, 't'.repeat(20_001), null] } },
  claimTask: { required: [], invalid: { force: [true], token: ['x'] } },
  renewTaskClaim: { required: ['token'], invalid: { token: ['not-a-uuid', '', 5, '00000000-0000-0000-0000-000000000000'] } },
  releaseTaskClaim: { required: ['token'], invalid: { token: ['not-a-uuid', '', 5, '00000000-0000-0000-0000-000000000000'] } },
  completeTask: { required: [], invalid: { note: ['', 5, 'n'.repeat(20_001)] } },
  createSpool: { required: ['name'], invalid: { name: ['bad name', '', 'n'.repeat(64), 5, 'dot.name'] } },
  putQueue: { required: ['leaseTimeoutSeconds'], invalid: { leaseTimeoutSeconds: [0, 43_201, 'x', 1.5, -1, true] } },
  sendMessage: { required: ['body'], invalid: { delaySeconds: [-1, 901, 'x', 1.5, null] } },
  nackMessage: { required: [], invalid: { delaySeconds: [-1, 901, 'x', 1.5] } },
  advanceControlClock: { required: ['ms'], invalid: { ms: [-1, 1.5, 'x', 31_536_000_001, null] } },
  injectControlFault: {
    required: ['times'],
    invalid: { times: [0, 1_000_001, 'x', 1.5], status: [399, 600, 'x'], probability: [-0.1, 1.5, 'x'], latencyMs: [-1, 600_001], dropResponse: ['yes'], retryAfterSeconds: [0, 3601] },
  },
  cancelControlScope: { required: ['spaceId', 'scopeId'], invalid: { spaceId: ['x', 5], scopeId: ['x', null] } },
  discardControlMessage: { required: ['spool', 'handle'], invalid: { spool: ['bad name', ''], handle: ['nope', 5] } },
  updateControlAccount: { required: ['suspended'], invalid: { suspended: ['yes', 1, null] } },
  updateControlCredential: { required: ['apiKey'], invalid: { apiKey: ['', 5], blocked: ['yes'], rateLimitPerSecond: [0, -1, 'x', 1.5] } },
};

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PURGE', 'LINK'];

function authMutations(): Array<fc.Arbitrary<Mutation>> {
  const known = new Set(['lh_test_admin', 'lh_test_reader', 'lh_test_other', ...Object.values(STANDING_KEYS)]);
  return [
    fc.constant<Mutation>({ name: 'auth:missing', apply: withHeader('authorization', undefined), expect: { status: 401, codes: ['missing_api_key'] } }),
    fc
      .oneof(
        fc.constantFrom('Basic bGhfdGVzdF9hZG1pbg==', 'Bearer', 'Bearer ', 'lh_test_admin', 'Bearer lh_test_admin extra', 'Token lh_test_admin', 'Bearer\tlh_test_admin', 'Bearer "lh_test_admin"', 'bearer: lh_test_admin'),
        printable(60).filter((s) => !/^\s*bearer +lh_[a-z_]+\s*$/i.test(s)),
      )
      .map<Mutation>((value) => ({
        name: `auth:malformed ${JSON.stringify(value)}`,
        apply: withHeader('authorization', value),
        // A comma is what a repeated header looks like once joined: never one credential.
        expect: value.includes(',') ? { status: 400, codes: ['ambiguous_header'] } : { status: 401, codes: ['missing_api_key', 'invalid_api_key'] },
      })),
    fc
      .stringMatching(/^lh_[A-Za-z0-9_]{1,40}$/)
      .filter((key) => !known.has(key))
      .map<Mutation>((key) => ({ name: `auth:unknown ${key}`, apply: withHeader('authorization', `Bearer ${key}`), expect: { status: 401, codes: ['invalid_api_key'] } })),
    fc.constant<Mutation>({
      name: 'auth:huge',
      apply: withHeader('authorization', `Bearer lh_${'a'.repeat(20_000)}`),
      expect: { status: 401, codes: ['invalid_api_key'] },
      inProcessOnly: true,
    }),
    fc
      .constantFrom('Bearer lh_test_admin', 'Bearer lh_test_other', 'Bearer lh_nope', '')
      .map<Mutation>((second) => ({
        name: `auth:repeated (+ ${JSON.stringify(second)})`,
        // A repeated header, as every transport hands it on: the values joined with ", ".
        apply: (call) => withHeader('authorization', `${call.headers.authorization ?? ''}, ${second}`)(call),
        expect: { status: 400, codes: ['ambiguous_header'] },
      })),
    fc.constant<Mutation>({ name: 'auth:expired', apply: withHeader('authorization', `Bearer ${STANDING_KEYS.expired}`), expect: { status: 401, codes: ['expired_api_key'] } }),
    fc.constant<Mutation>({ name: 'auth:blocked', apply: withHeader('authorization', `Bearer ${STANDING_KEYS.blocked}`), expect: { status: 403, codes: [null] } }),
    fc.constant<Mutation>({ name: 'auth:suspended', apply: withHeader('authorization', `Bearer ${STANDING_KEYS.suspended}`), expect: { status: 402, codes: ['account_suspended'] } }),
  ];
}

function routeMutations(op: OperationInfo): Array<fc.Arbitrary<Mutation>> {
  const allowed = methodsAt(op.template);
  const wrong = METHODS.filter((m) => !allowed.includes(m));
  return [
    fc
      .tuple(fc.stringMatching(/^[a-z0-9]{1,8}$/), fc.integer({ min: 0, max: 4 }))
      .map<Mutation>(([word, variant]) => ({
        name: `route:unknown#${variant} ${word}`,
        apply: (call) => {
          const s = [...call.segments];
          if (variant === 0) s.push(`x~${word}`);
          else if (variant === 1) s[0] = ['v2', 'V1', 'v1.0', `v1${word}`][word.length % 4] as string;
          else if (variant === 2) s.splice(1 + (word.length % (s.length - 1 || 1)), 0, '');
          else if (variant === 3) s.push('');
          else s.unshift(`api~${word}`);
          return { ...call, segments: s };
        },
      })),
    fc.constantFrom(...wrong).map<Mutation>((method) => ({
      name: `method:${method}`,
      apply: (call) => ({ ...call, method, body: method === 'GET' || method === 'HEAD' ? undefined : call.body }),
      expect: { status: 405, codes: ['method_not_allowed'] },
    })),
  ];
}

function pathMutations(op: OperationInfo): Array<fc.Arbitrary<Mutation>> {
  const out: Array<fc.Arbitrary<Mutation>> = [];
  op.templateSegments.forEach((segment, index) => {
    const param = /^\{(.+)\}$/.exec(segment)?.[1];
    if (!param) return;
    const bad = BAD_PATH[param] ?? ['%zz'];
    out.push(
      fc.constantFrom(...bad).map<Mutation>((value) => ({
        name: `path:${param}=${value.slice(0, 40)}`,
        apply: (call) => ({ ...call, segments: call.segments.map((s, i) => (i === index ? value : s)) }),
        expect: { status: 400 },
      })),
    );
    // (A queue named by PUT is created, not missing.)
    const missing = op.operationId === 'putQueue' && param === 'queue' ? undefined : MISSING_PATH[param];
    if (missing) {
      out.push(
        fc.constantFrom(...missing).map<Mutation>((value) => ({
          name: `path:${param} names nothing (${value})`,
          apply: (call) => ({ ...call, segments: call.segments.map((s, i) => (i === index ? value : s)) }),
        })),
      );
    }
  });
  return out;
}

function queryMutations(op: OperationInfo): Array<fc.Arbitrary<Mutation>> {
  const out: Array<fc.Arbitrary<Mutation>> = [
    fc
      .tuple(ident.filter((name) => !op.queryParams.includes(name)), printable(20))
      .map<Mutation>(([name, value]) => ({
        name: `query:unknown ${name}`,
        apply: (call) => ({ ...call, query: [call.query, `${name}=${encodeURIComponent(value)}`].filter(Boolean).join('&') }),
        expect: { status: 400 },
      })),
  ];
  const invalid: Record<string, string[]> = {
    limit: ['0', '101', '-5', 'ten', '1.5', '', '1e2'],
    cursor: ['', '!!', '%zz', 'Zm9v=', 'a'.repeat(2049)],
    prefix: ['p'.repeat(513)],
  };
  for (const name of op.queryParams) {
    const values = invalid[name];
    if (!values) continue;
    out.push(
      fc.constantFrom(...values).map<Mutation>((value) => ({
        name: `query:${name}=${value.slice(0, 20)}`,
        apply: (call) => {
          const kept = call.query.split('&').filter((pair) => pair && !pair.startsWith(`${name}=`));
          return { ...call, query: [...kept, `${name}=${value}`].join('&') };
        },
        expect: { status: 400 },
      })),
    );
  }
  return out;
}

function headerMutations(op: OperationInfo): Array<fc.Arbitrary<Mutation>> {
  const out: Array<fc.Arbitrary<Mutation>> = [];
  const has = (name: string) => op.headerParams.includes(name);
  if (has('Idempotency-Key')) {
    out.push(
      fc
        .oneof(fc.constantFrom('', 'a'.repeat(258), 'a\tb', 'cl\u00e9', `"${'a'.repeat(256)}"`, '""', 'tab\there', '\u00ff'), printable(8).map((s) => `${s}\u00e9`))
        .map<Mutation>((value) => ({ name: `header:Idempotency-Key=${JSON.stringify(value.slice(0, 20))}`, apply: withHeader('idempotency-key', value), expect: { status: 400, codes: ['invalid_idempotency_key'] } })),
    );
  }
  if (has('If-Match')) {
    out.push(
      fc.constantFrom('task-1-v1', '"open', 'W/', ', ,', 'x'.repeat(201)).map<Mutation>((value) => ({
        name: `header:If-Match=${value.slice(0, 20)}`,
        apply: withHeader('if-match', value),
        expect: { status: 400 },
      })),
      fc.constantFrom('"task-1-v999"', '*', 'W/"task-1-v1"').map<Mutation>((value) => ({ name: `header:If-Match stale ${value}`, apply: withHeader('if-match', value), expect: { status: 412, codes: ['etag_mismatch'] } })),
      fc.constant<Mutation>({ name: 'header:If-Match missing', apply: withHeader('if-match', undefined), expect: { status: 428, codes: ['if_match_required'] } }),
    );
  }
  if (has('X-Task-Claim')) {
    out.push(
      fc.constantFrom('not-a-uuid', '00000000-0000-0000-0000-000000000000', '', '{token}').map<Mutation>((value) => ({
        name: `header:X-Task-Claim=${value}`,
        apply: withHeader('x-task-claim', value),
        expect: { status: 400, codes: ['invalid_token'] },
      })),
      fc.uuid({ version: 4 }).map<Mutation>((value) => ({ name: 'header:X-Task-Claim wrong', apply: withHeader('x-task-claim', value), expect: { status: 409, codes: ['claim_not_held'] } })),
    );
  }
  if (has('Spooler-Lease')) {
    out.push(
      fc.constantFrom('short', 'has space here!!!', '', 'x'.repeat(257), undefined).map<Mutation>((value) => ({
        name: `header:Spooler-Lease=${String(value).slice(0, 20)}`,
        apply: withHeader('spooler-lease', value),
        expect: { status: 400, codes: ['invalid_token'] },
      })),
      fc.stringMatching(/^[A-Za-z0-9_-]{16,40}$/).map<Mutation>((value) => ({ name: 'header:Spooler-Lease unknown', apply: withHeader('spooler-lease', value) })),
    );
  }
  if (has('Leasehold-Session')) {
    out.push(
      fc.constantFrom('', 's'.repeat(201)).map<Mutation>((value) => ({ name: `header:Leasehold-Session length ${value.length}`, apply: withHeader('leasehold-session', value), expect: { status: 400 } })),
    );
  }
  return out;
}

function bodyMutations(op: OperationInfo): Array<{ arbitrary: fc.Arbitrary<Mutation>; weight: number }> {
  if (!op.hasBody) return [];
  const fields = BAD_FIELDS[op.operationId] ?? { required: [], invalid: {} };
  const out: Array<fc.Arbitrary<Mutation>> = [
    fc
      .constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'text/json', 'application/jsonp', 'application/json-seq')
      .map<Mutation>((type) => ({
        name: `body:content-type ${type}`,
        apply: (call) => ({ ...call, headers: { ...call.headers, 'content-type': type }, body: call.body === undefined || bodyText(call) === '' ? '{}' : call.body }),
        expect: { status: 415, codes: ['unsupported_media_type'] },
      })),
    fc
      .oneof(
        fc.constantFrom('{', '{"a":1', "{'a':1}", '{"a":1}x', 'NaN', '{"a":undefined}', '/* c */ {}', '{"a":01}', '[1,]', '{"a" 1}', 'nul', '\u0000'),
        fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== '' && !isJson(s)),
      )
      .map<Mutation>((text) => ({ name: `body:not-json ${JSON.stringify(text.slice(0, 20))}`, apply: setBody(text), expect: { status: 400, codes: ['invalid_json'] } })),
    fc.integer({ min: 1, max: 1000 }).map<Mutation>((cut) => ({
      name: `body:truncated at ${cut}`,
      apply: (call) => {
        const text = bodyText(call) ?? '{}';
        const prefix = text.slice(0, 1 + (cut % Math.max(1, text.length - 1)));
        return setBody(isJson(prefix) || prefix.trim() === '' ? `${prefix}{` : prefix)(call);
      },
      expect: { status: 400, codes: ['invalid_json'] },
    })),
    fc.constantFrom<number[]>([0xc3, 0x28], [0xff], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80]).map<Mutation>((bad) => ({
      name: `body:bad utf-8 ${bad.map((b) => b.toString(16)).join(' ')}`,
      apply: setBody(bytes('{"s":"', bad, '"}')),
      expect: { status: 400, codes: ['invalid_json'] },
    })),
    fc.constant<Mutation>({
      name: 'body:utf-16le',
      apply: (call) => setBody(new Uint8Array(Buffer.from(bodyText(call) ?? '{}', 'utf16le')), { 'content-type': 'application/json; charset=utf-16le' })(call),
      expect: { status: 400, codes: ['invalid_json'] },
    }),
    fc.constant<Mutation>({
      name: 'body:gzip',
      apply: (call) => setBody(new Uint8Array(gzipSync(bodyText(call) ?? '{}')), { 'content-encoding': 'gzip' })(call),
      expect: { status: 400, codes: ['invalid_json'] },
    }),
    fc.constantFrom('[]', '[{}]', '1', '-0', '"text"', 'true', 'false', 'null', '"{}"').map<Mutation>((text) => ({ name: `body:not an object ${text}`, apply: setBody(text), expect: { status: 400 } })),
    fc.tuple(ident, fc.jsonValue({ maxDepth: 3 })).map<Mutation>(([name, value]) => ({
      name: `body:unknown field zz_${name}`,
      apply: (call) => {
        const object = bodyObject(call);
        return object ? setBody(JSON.stringify({ ...object, [`zz_${name}`]: value }))(call) : call;
      },
      expect: { status: 400 },
    })),
    fc.integer({ min: 50, max: 3000 }).map<Mutation>((depth) => ({
      name: `body:nested ${depth} deep`,
      apply: (call) => {
        const object = bodyObject(call);
        const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
        return object ? setBody(`${JSON.stringify(object).slice(0, -1)}${Object.keys(object).length > 0 ? ',' : ''}"zz_deep":${nested}}`)(call) : call;
      },
      expect: { status: 400 },
    })),
  ];
  out.push(
    fc.constantFrom('application/json, application/json', 'application/json, text/plain', 'text/plain, application/json', 'application/json,application/json; charset=utf-8').map<Mutation>((value) => ({
      name: `body:content-type repeated ${value}`,
      apply: (call) => ({ ...call, headers: { ...call.headers, 'content-type': value }, body: call.body === undefined || bodyText(call) === '' ? '{}' : call.body }),
      expect: { status: 400, codes: ['ambiguous_header'] },
    })),
  );
  const stored = STORED_JSON[op.operationId];
  if (stored) {
    const withStored = (text: string) => (call: PlainCall): PlainCall => {
      const object = bodyObject(call);
      if (!object) return call;
      const { [stored.field]: _replaced, ...rest } = object;
      const head = JSON.stringify(rest).slice(0, -1);
      return setBody(`${head}${head.length > 1 ? ',' : ''}"${stored.field}":${stored.wrap(text)}}`)(call);
    };
    out.push(
      fc.tuple(fc.oneof(fc.integer({ min: 64, max: 200 }), fc.integer({ min: 200, max: 20_000 })), fc.boolean()).map<Mutation>(([levels, mixed]) => ({
        name: `body:stored ${stored.field} nested ${levels} deep${mixed ? ' (objects and arrays)' : ''}`,
        apply: withStored(nestedJson(levels, mixed)),
        expect: { status: 400, codes: ['json_too_deep'] },
      })),
      fc.constantFrom('1e400', '[-1e999]', '{"n":2e308}').map<Mutation>((text) => ({
        name: `body:stored ${stored.field} holds ${text}`,
        apply: withStored(text),
        expect: { status: 400, codes: ['invalid_json'] },
      })),
    );
  }
  const invalidEntries = Object.entries(fields.invalid);
  if (invalidEntries.length > 0) {
    out.push(
      fc.constantFrom(...invalidEntries.flatMap(([field, values]) => values.map((value) => [field, value] as const))).map<Mutation>(([field, value]) => ({
        name: `body:${field}=${JSON.stringify(value)?.slice(0, 30)}`,
        apply: (call) => {
          const object = bodyObject(call);
          return object ? setBody(JSON.stringify({ ...object, [field]: value }))(call) : call;
        },
        expect: { status: 400 },
      })),
    );
  }
  if (fields.required.length > 0) {
    out.push(
      fc.constantFrom(...fields.required).map<Mutation>((field) => ({
        name: `body:without ${field}`,
        apply: (call) => {
          const object = bodyObject(call);
          if (!object) return call;
          const { [field]: _dropped, ...rest } = object;
          return setBody(JSON.stringify(rest))(call);
        },
        expect: { status: 400 },
      })),
    );
  }
  if (op.operationId === 'updateTask') {
    out.push(fc.constant<Mutation>({ name: 'body:no field to change', apply: setBody('{}'), expect: { status: 400 } }));
  }
  // A 1 MiB body is costly to send: rarer than the others.
  const huge = fc.constant<Mutation>({ name: 'body:over 1 MiB', apply: setBody(HUGE_BODY), expect: { status: 413, codes: ['body_too_large'] } });
  return [...out.map((arbitrary) => ({ arbitrary, weight: 4 })), { arbitrary: huge, weight: 1 }];
}

const cache = new Map<string, fc.Arbitrary<Mutation>>();

/** Every malformation that applies to `op` (built once per operation). */
export function mutationsFor(op: OperationInfo): fc.Arbitrary<Mutation> {
  let arbitrary = cache.get(op.operationId);
  if (!arbitrary) cache.set(op.operationId, (arbitrary = buildMutations(op)));
  return arbitrary;
}

function buildMutations(op: OperationInfo): fc.Arbitrary<Mutation> {
  const weighted = (arbitrary: fc.Arbitrary<Mutation>, weight: number) => ({ arbitrary, weight });
  // The test levers take no credential and no declared header: those mutations change nothing there.
  const control = op.template.startsWith('/_control');
  return fc.oneof(
    ...(control ? [] : authMutations()).map((a) => weighted(a, 2)),
    ...routeMutations(op).map((a) => weighted(a, 3)),
    ...pathMutations(op).map((a) => weighted(a, 4)),
    ...queryMutations(op).map((a) => weighted(a, 2)),
    ...(control ? [] : headerMutations(op)).map((a) => weighted(a, 3)),
    ...bodyMutations(op),
  );
}
