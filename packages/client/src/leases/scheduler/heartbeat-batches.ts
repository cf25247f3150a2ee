import type { HeartbeatResponse, HeartbeatResult } from '../../resources/wire-types.js';

/** The most `claimIds` one heartbeat may name (the spec's `maxItems`). */
export const MAX_CLAIM_IDS_PER_HEARTBEAT = 10_000;

/**
 * Sends ONE logical heartbeat naming `claimIds`: a single request when they fit, else
 * ceil(N / `maxIds`) requests in parallel whose acks are concatenated (any failure fails it).
 * With no ids at all it still sends one request (an empty list touches nothing).
 */
export async function sendNamedHeartbeat<B extends object>(
  send: (body: B & { claimIds: string[] }) => Promise<HeartbeatResponse>,
  body: B,
  claimIds: readonly string[],
  maxIds: number = MAX_CLAIM_IDS_PER_HEARTBEAT,
): Promise<HeartbeatResponse> {
  if (claimIds.length <= maxIds) return send({ ...body, claimIds: [...claimIds] });
  const batches: Array<Promise<HeartbeatResponse>> = [];
  for (let start = 0; start < claimIds.length; start += maxIds) {
    batches.push(send({ ...body, claimIds: claimIds.slice(start, start + maxIds) }));
  }
  const answers = await Promise.all(batches);
  const results: HeartbeatResult[] = [];
  for (const answer of answers) {
    if (typeof answer !== 'object' || answer === null || !Array.isArray(answer.results)) return answer;
    for (const result of answer.results) results.push(result);
  }
  return { object: 'list', results };
}
