import { encodePath } from '../core/build-url.js';
import { request, type LeaseholdResponse, type RequestConfig } from '../core/request.js';
import type { Message, NackMessageRequest, PutQueueRequest, Queue, SendMessageRequest, Spool } from '../wire-types.js';
import type { CallOptions } from './call-options.js';
import { objectBody, receiveAnswer, spoolRenewal } from './answer-shapes.js';

const SPOOL = objectBody('spool create', [201]);
const QUEUE = objectBody('queue put', [200, 201]);
const SENT = objectBody('send', [201]);

/** The spool operations under `/v1/spools`, one call each. */
export class SpoolsResource {
  readonly #config: RequestConfig;

  constructor(config: RequestConfig) {
    this.#config = config;
  }

  /** `POST /v1/spools` (409 `spool_exists` when it exists). */
  create(name: string, options: CallOptions = {}): Promise<LeaseholdResponse<Spool>> {
    return request<Spool>(this.#config, { method: 'POST', path: '/v1/spools', body: { name }, ...options, accept: SPOOL });
  }

  /** `PUT /queues/{queue}`: creates the queue or changes its lease timeout. */
  putQueue(spool: string, queue: string, body: PutQueueRequest, options: CallOptions = {}): Promise<LeaseholdResponse<Queue>> {
    return request<Queue>(this.#config, { method: 'PUT', path: encodePath`/v1/spools/${spool}/queues/${queue}`, body, ...options, accept: QUEUE });
  }

  /** `POST /queues/{queue}/messages`. */
  send(spool: string, queue: string, body: SendMessageRequest, options: CallOptions = {}): Promise<LeaseholdResponse<Message>> {
    return request<Message>(this.#config, { method: 'POST', path: encodePath`/v1/spools/${spool}/queues/${queue}/messages`, body, ...options, accept: SENT });
  }

  /** `POST /queues/{queue}/receive`: 200 with the message and its `Spooler-Lease`, or 204 (`data` undefined). */
  receive(spool: string, queue: string, session: string, options: CallOptions = {}): Promise<LeaseholdResponse<Message | undefined>> {
    return request<Message | undefined>(this.#config, { method: 'POST', path: encodePath`/v1/spools/${spool}/queues/${queue}/receive`, headers: { 'Leasehold-Session': session }, ...options, accept: receiveAnswer });
  }

  /** `POST /renew`: resets the lease to the queue's current timeout (204). */
  renew(spool: string, lease: string, options: CallOptions = {}): Promise<LeaseholdResponse<undefined>> {
    return request<undefined>(this.#config, { method: 'POST', path: encodePath`/v1/spools/${spool}/renew`, headers: { 'Spooler-Lease': lease }, ...options, accept: spoolRenewal });
  }

  /** `POST /ack`: deletes the leased message (204). */
  ack(spool: string, lease: string, options: CallOptions = {}): Promise<LeaseholdResponse<undefined>> {
    return request<undefined>(this.#config, { method: 'POST', path: encodePath`/v1/spools/${spool}/ack`, headers: { 'Spooler-Lease': lease }, ...options });
  }

  /** `POST /nack`: returns the leased message to its queue (204). */
  nack(spool: string, lease: string, body: NackMessageRequest = {}, options: CallOptions = {}): Promise<LeaseholdResponse<undefined>> {
    return request<undefined>(this.#config, { method: 'POST', path: encodePath`/v1/spools/${spool}/nack`, body, headers: { 'Spooler-Lease': lease }, ...options });
  }

  /** `DELETE /messages/{handle}`: deletes a message whatever its state (its lease goes stale). */
  discard(spool: string, handle: string, options: CallOptions = {}): Promise<LeaseholdResponse<undefined>> {
    return request<undefined>(this.#config, { method: 'DELETE', path: encodePath`/v1/spools/${spool}/messages/${handle}`, ...options });
  }
}
