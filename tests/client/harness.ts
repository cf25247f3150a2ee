import { randomUUID } from 'node:crypto';
import { vi } from 'vitest';
import { Leasehold, type LeaseholdOptions } from '../../packages/client/src/index.js';
import { createLeaseholdServer, listen, type LeaseholdServer, type NodeListener } from '../../packages/server/src/index.js';

/** How the client reaches the reference server: in process through `fetch`, or over real HTTP (undici). */
export type Mode = 'fetch' | 'http';

/** Both transports; integration suites run once per mode. */
export const MODES: Mode[] = ['fetch', 'http'];

/** One request as the server saw it. */
export interface Seen {
  method: string;
  path: string;
  headers: Record<string, string | undefined>;
  body: unknown;
}

/** A reference server (manual clock) plus clients wired to it, with a request log and a network switch. */
export interface Harness {
  mode: Mode;
  server: LeaseholdServer;
  /** Every request that reached the server (or was refused by `down`). */
  seen: Seen[];
  /** While true the network fails: `fetch` rejects, or HTTP connections are cut. */
  down: boolean;
  /** A client against this server (defaults: `lh_test_admin`, fast deterministic renewals). */
  client(options?: Partial<LeaseholdOptions>): Leasehold;
  /** Requests whose path ends with `suffix` (and method, if given). */
  requests(suffix: string, method?: string): Seen[];
  /** Resolves once no client request is in flight (then lets continuations run). */
  settle(): Promise<void>;
  /** Closes every client and the listener. */
  close(): Promise<void>;
}

/** The fake timers the client tests use: never `queueMicrotask` / `nextTick` / `setImmediate`. */
export const FAKE_TIMERS = {
  toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'],
} satisfies Parameters<typeof vi.useFakeTimers>[0];

/** Waits (real time, bounded) until `condition()` holds, yielding with `setImmediate`. */
export async function until(condition: () => boolean, what = 'condition', timeoutMs = 5000): Promise<void> {
  const start = process.hrtime.bigint();
  while (!condition()) {
    if (Number(process.hrtime.bigint() - start) / 1e6 > timeoutMs) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** A fresh space or run id. */
export const uuid = (): string => randomUUID();

function decode(body: string | Uint8Array | undefined | null): unknown {
  if (body === undefined || body === null) return undefined;
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Starts a manual-clock reference server reachable in `mode`. */
export async function startHarness(mode: Mode): Promise<Harness> {
  const server = createLeaseholdServer({ clock: 'manual' });
  const seen: Seen[] = [];
  const clients: Leasehold[] = [];
  let pending = 0;
  let listener: NodeListener | undefined;
  const harness: Harness = {
    mode,
    server,
    seen,
    down: false,
    client(options = {}) {
      const fetch: LeaseholdOptions['fetch'] = async (input, init) => {
        const url = new URL(input);
        const headers = Object.fromEntries(Object.entries(init.headers as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
        seen.push({ method: init.method ?? 'GET', path: url.pathname, headers, body: decode(init.body as string | undefined) });
        if (harness.down) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
        return server.handle(new Request(input, init));
      };
      const transport: Pick<LeaseholdOptions, 'baseUrl' | 'fetch'> =
        mode === 'fetch' ? { baseUrl: 'http://leasehold.test', fetch } : { baseUrl: listener?.url ?? '' };
      const lh = new Leasehold({
        apiKey: 'lh_test_admin',
        renewal: { jitter: 0 },
        hooks: {
          onAttemptStart: () => void pending++,
          onAttemptEnd: () => void pending--,
        },
        ...transport,
        ...options,
      });
      clients.push(lh);
      return lh;
    },
    requests(suffix, method) {
      return seen.filter((s) => s.path.endsWith(suffix) && (method === undefined || s.method === method));
    },
    async settle() {
      // Quiet for three turns in a row: nothing in flight, nothing about to start.
      let quiet = 0;
      await until(() => {
        quiet = pending === 0 ? quiet + 1 : 0;
        return quiet > 3;
      }, 'requests in flight to finish');
    },
    async close() {
      await Promise.all(clients.map((lh) => lh.close({ releaseLeases: false })));
      await listener?.close();
    },
  };
  if (mode === 'http') {
    listener = await listen(
      {
        handlePlain: async (plain) => {
          const path = plain.url.split('?')[0] ?? plain.url;
          seen.push({ method: plain.method, path, headers: { ...plain.headers }, body: decode(plain.body) });
          if (harness.down) return { status: 0, headers: {}, body: undefined, drop: true };
          return server.handlePlain(plain);
        },
      },
      { port: 0 },
    );
  }
  return harness;
}

/**
 * Moves time forward on both sides in steps: the server's manual clock, then the client's fake
 * timers, letting every request started on the way finish before the next step.
 */
export async function advance(harness: Harness, ms: number, stepMs = 1000): Promise<void> {
  for (let left = ms; left > 0; left -= stepMs) {
    const step = Math.min(stepMs, left);
    harness.server.control.advanceClock(step);
    await vi.advanceTimersByTimeAsync(step);
    await harness.settle();
  }
}
