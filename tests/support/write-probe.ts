/**
 * A steady stream of acknowledged writes for the failover test: every `everyMs` one acquire of a
 * fresh key (one attempt, no retry, its own Idempotency-Key), each answer timestamped. It shows
 * the service gap (the first failed request to the first success after an event) and every
 * claim the service acknowledged, which `audit()` then reads back: an acknowledged grant a
 * failover lost is missing there, or held under another claim.
 */
import { randomUUID } from 'node:crypto';

/** One probe request's outcome. */
export interface ProbeAnswer {
  atMs: number;
  /** The HTTP status, or 0 when no answer came (connection refused or reset, timeout). */
  status: number;
  key: string;
  claimId?: string;
  fence?: number;
  /** Why no answer came (status 0), or the error envelope's code. */
  error?: string;
}

/** What reading the acknowledged claims back found. */
export interface ProbeAudit {
  acknowledged: number;
  /** Keys whose acknowledged claim the service no longer has (another claim, or none). */
  missing: string[];
}

/** A running probe. */
export interface WriteProbe {
  readonly answers: readonly ProbeAnswer[];
  /** Milliseconds from the first failure at or after `sinceMs` to the first success after it (0: none failed). */
  gapAfter(sinceMs: number): number;
  /** Resolves at the first success after `sinceMs`, or throws after `timeoutMs`. */
  successAfter(sinceMs: number, timeoutMs: number): Promise<void>;
  /** How many claims it has had acknowledged so far. */
  acknowledged(): number;
  stop(): Promise<void>;
  /** Reads every acknowledged claim back through `readUrl` (a server of the same store; retried while it answers 5xx). */
  audit(readUrl: string): Promise<ProbeAudit>;
}

const headersOf = (apiKey: string) => ({ authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' });

/** Starts probing `baseUrl` (the fleet's balancer) on a space of its own. */
export function startWriteProbe(baseUrl: string, apiKey: string, everyMs = 50): WriteProbe {
  const spaceId = randomUUID();
  const scopeId = randomUUID();
  const answers: ProbeAnswer[] = [];
  let running = true;
  let n = 0;
  const loop = (async () => {
    while (running) {
      const key = `probe-${++n}`;
      const answer: ProbeAnswer = { atMs: Date.now(), status: 0, key };
      try {
        const response = await fetch(`${baseUrl}/v1/spaces/${spaceId}/claims`, {
          method: 'POST',
          headers: { ...headersOf(apiKey), 'idempotency-key': randomUUID() },
          body: JSON.stringify({ key, scopeId, holder: 'probe', holderSession: 'sess_probe', leaseSeconds: 600 }),
          signal: AbortSignal.timeout(5000),
        });
        answer.status = response.status;
        const body = (await response.json().catch(() => ({}))) as { claimId?: string; fence?: number; error?: { code?: string; message?: string } };
        if (response.status === 201) Object.assign(answer, { claimId: body.claimId, fence: body.fence });
        else answer.error = body.error === undefined ? JSON.stringify(body).slice(0, 200) : `${body.error.code}: ${body.error.message}`;
      } catch (error) {
        answer.status = 0;
        answer.error = String((error as Error).cause ?? (error as Error).message);
      }
      answer.atMs = Date.now();
      answers.push(answer);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  const ok = (a: ProbeAnswer) => a.status === 201;
  return {
    answers,
    gapAfter: (sinceMs) => {
      const after = answers.filter((a) => a.atMs >= sinceMs);
      const firstFailure = after.findIndex((a) => !ok(a));
      if (firstFailure < 0) return 0;
      const recovered = after.slice(firstFailure).find(ok);
      return (recovered?.atMs ?? Date.now()) - after[firstFailure]!.atMs;
    },
    successAfter: async (sinceMs, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (!answers.some((a) => a.atMs > sinceMs && ok(a))) {
        if (Date.now() > deadline) throw new Error(`the write probe saw no success within ${timeoutMs} ms; last answers ${JSON.stringify(answers.slice(-5))}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    acknowledged: () => answers.filter(ok).length,
    stop: async () => {
      running = false;
      await loop;
    },
    audit: async (readUrl) => {
      const granted = answers.filter(ok);
      const missing: string[] = [];
      for (const answer of granted) {
        for (let attempt = 0; ; attempt++) {
          const response = await fetch(`${readUrl}/v1/spaces/${spaceId}/claims/${answer.key}`, { headers: headersOf(apiKey), signal: AbortSignal.timeout(5000) }).catch(() => undefined);
          if (response !== undefined && response.status < 500) {
            const body = (await response.json().catch(() => ({}))) as { claimId?: string };
            if (response.status !== 200 || body.claimId !== answer.claimId) missing.push(answer.key);
            break;
          }
          if (attempt > 5) throw new Error(`reading back ${answer.key}: the service still answers ${response?.status ?? 'nothing'}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      return { acknowledged: granted.length, missing };
    },
  };
}
