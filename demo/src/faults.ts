import type { FaultRule } from '@leasehold/server';

/** The server levers the demo pulls: fault rules and a primary change. */
export interface FaultControls {
  injectFault(rule: FaultRule): Promise<void>;
  primaryChange(): Promise<number>;
}

/** Levers of a server in this process. */
export function embeddedControls(control: { injectFault(rule: FaultRule): unknown; primaryChange(): number | Promise<number> }): FaultControls {
  return {
    injectFault: async (rule) => {
      await control.injectFault(rule);
    },
    primaryChange: async () => control.primaryChange(),
  };
}

/** Levers of a remote reference server started with `--control`; `undefined` when it has none. */
export async function remoteControls(baseUrl: string): Promise<FaultControls | undefined> {
  const call = async (path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}/_control${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`/_control${path} answered ${response.status}`);
    return (await response.json()) as { affected?: number };
  };
  try {
    await call('/clock');
  } catch {
    return undefined;
  }
  return {
    injectFault: async (rule) => {
      await call('/faults', rule);
    },
    primaryChange: async () => (await call('/primary-change', {})).affected ?? 0,
  };
}

/** One step of the fault timeline. */
export interface FaultStep {
  atMs: number;
  label: string;
  run(): Promise<void> | void;
}

/**
 * The faults a production fleet meets, spaced over the first seconds of the run: a burst of
 * 503s, a 429 with Retry-After, one worker whose event loop stalls until its leases are lost,
 * and a primary change that makes every outstanding spool lease stale.
 */
export function faultTimeline(controls: FaultControls, stallWorker: (ms: number) => void, stallMs: number, log: (line: string) => void): FaultStep[] {
  return [
    {
      atMs: 1500,
      label: 'burst of 503s (next 15 requests)',
      run: () => controls.injectFault({ times: 15, status: 503 }),
    },
    {
      atMs: 3000,
      label: '429 with Retry-After: 1 (next 3 heartbeats)',
      run: () => controls.injectFault({ operationId: 'heartbeatClaims', times: 3, status: 429, retryAfterSeconds: 1 }),
    },
    {
      atMs: 4000,
      label: `one worker's event loop stalls for ${stallMs / 1000} s`,
      run: () => stallWorker(stallMs),
    },
    {
      atMs: 6500,
      label: 'primary change (outstanding spool leases go stale)',
      run: async () => {
        const affected = await controls.primaryChange();
        log(`  primary change: ${affected} spool lease(s) went stale`);
      },
    },
  ];
}
