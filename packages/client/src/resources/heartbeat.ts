import { request, type LeaseholdResponse, type RequestConfig } from '../core/request.js';
import type { HeartbeatRequest, HeartbeatResponse } from '../wire-types.js';
import type { CallOptions } from './call-options.js';
import { heartbeatAnswer } from './answer-shapes.js';

/** `POST /v1/claims/heartbeat`: one request renews every lease of the credential (or of one session, or exactly the `claimIds` named). */
export class HeartbeatResource {
  readonly #config: RequestConfig;

  constructor(config: RequestConfig) {
    this.#config = config;
  }

  /** Sends one batch heartbeat. */
  send(body: HeartbeatRequest, options: CallOptions = {}): Promise<LeaseholdResponse<HeartbeatResponse>> {
    return request<HeartbeatResponse>(this.#config, { method: 'POST', path: '/v1/claims/heartbeat', body, ...options, accept: heartbeatAnswer });
  }
}
