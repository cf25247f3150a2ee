import { operationMetadata } from '@leasehold/protocol';
import { assertSendable } from '../internal/argument-checks.js';
import { request, type LeaseholdResponse, type RequestConfig, type RequestOptions } from '../core/request/request.js';
import type { QueryValue } from '../core/request/build-url.js';
import { answerShapes } from './answer-shapes.js';
import type { CallOptions } from './call-options.js';
import type { ClientOperationId, OperationAnswer, OperationInput } from './operation-io.js';

/** A path template split once: literal parts around the parameter names. */
interface CompiledPath {
  readonly literals: readonly string[];
  readonly names: readonly string[];
}

const compiled = new Map<ClientOperationId, CompiledPath>();

function compile(id: ClientOperationId): CompiledPath {
  let path = compiled.get(id);
  if (path === undefined) {
    const parts = operationMetadata[id].path.split(/\{([^}]+)\}/);
    path = { literals: parts.filter((_, i) => i % 2 === 0), names: parts.filter((_, i) => i % 2 === 1) };
    compiled.set(id, path);
  }
  return path;
}

/**
 * The path of one call: the spec's template with each parameter percent-encoded as one segment
 * (a claim key `reports/2026-11` becomes `reports%2F2026-11`). A segment that cannot be sent
 * losslessly (a lone surrogate, `.` or `..`) is an `InvalidArgumentError` before anything is sent.
 */
function pathOf(id: ClientOperationId, params: Readonly<Record<string, string | number>> | undefined): string {
  const { literals, names } = compile(id);
  let out = literals[0] ?? '';
  for (let i = 0; i < names.length; i++) {
    const segment = String(params?.[names[i] as string]);
    assertSendable(segment, 'path segment', 'path');
    out += encodeURIComponent(segment) + (literals[i + 1] ?? '');
  }
  return out;
}

/**
 * The API, one typed call per operation keyed by its operationId (openapi-fetch's model, with
 * the spec's ids instead of paths): method and path come from the generated operation metadata,
 * parameters and body are typed from the generated `operations`, and every answer is checked
 * against its operation's shape. A call neither catches nor retries: `request()` owns that.
 * @example
 * const { data: claim } = await api.call('renewSpaceClaim', { path: { spaceId, key }, body: { token, leaseSeconds: 30 } });
 */
export class Api {
  readonly #config: RequestConfig;

  constructor(config: RequestConfig) {
    this.#config = config;
  }

  /** Sends operation `id` with `input` (and per-call `options`; `claimId`/`leaseKind` label a call on one lease for telemetry); resolves with its typed success answer. */
  call<Id extends ClientOperationId>(id: Id, input: OperationInput<Id>, options: CallOptions = {}, claimId?: string, leaseKind?: string): Promise<LeaseholdResponse<OperationAnswer<Id>>> {
    const meta = operationMetadata[id];
    const { path, query, headers, body } = input as { path?: Record<string, string | number>; query?: Record<string, QueryValue>; headers?: Record<string, string | undefined>; body?: unknown };
    const sent: RequestOptions = { method: meta.method, path: pathOf(id, path), ...options, accept: answerShapes[id] };
    if (query !== undefined) sent.query = query;
    if (body !== undefined) sent.body = body;
    if (headers !== undefined) sent.headers = headers;
    if (this.#config.tracer !== undefined) sent.operation = { operationId: id, urlTemplate: meta.path, claimId, leaseKind };
    return request<OperationAnswer<Id>>(this.#config, sent);
  }
}
