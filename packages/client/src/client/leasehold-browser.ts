import { LeaseholdClient } from './leasehold-client.js';
import type { LeaseholdOptions } from './leasehold-options.js';
import { browserPlatform } from './browser-platform.js';

/**
 * The Leasehold client: space claims, tasks and spools, every lease renewed by ONE batch
 * heartbeat per cadence, every mutating call idempotent across retries.
 * (The browser entry: `fetch` only — `globalThis.fetch` unless you give one; no undici, no
 * `FileIdempotencyStore`, telemetry only through `telemetry: { api }`.)
 * @example
 * const lh = new Leasehold({ baseUrl: 'https://api.leasehold.example', apiKey: process.env.LEASEHOLD_API_KEY! });
 * const run = lh.space(spaceId).run(runId, { holder: 'worker-1' });
 * const rows = await run.claim('reports/2026-11').run(async (lease) => rebuild({ fence: lease.fence, signal: lease.signal }));
 * await lh.close();
 * @see https://api.leasehold.example/docs
 */
export class Leasehold extends LeaseholdClient {
  /** Validates every option first: a bad one throws an `InvalidArgumentError` naming it and its value. */
  constructor(options: LeaseholdOptions) {
    super(options, browserPlatform);
  }
}
