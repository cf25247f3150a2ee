/**
 * How the benchmarks drive `@leasehold/client`: its public `Leasehold` class, compiled from the
 * current source as the package build does (see `build.ts`); `BENCH_SDK=source` runs the source
 * through tsx instead.
 */
import { pathToFileURL } from 'node:url';
import type { Dispatcher } from 'undici';
import type { Leasehold, LeaseholdOptions, SpaceLease } from '../../packages/client/src/index.js';

type FetchLike = Leasehold.FetchLike;
import { buildClientBundle } from './build.js';
import { API_KEY, RUN_ID, SPACE_ID } from './fixtures.js';

export type { Leasehold, SpaceLease };

type Sdk = typeof import('../../packages/client/src/index.js');

let loading: Promise<Sdk> | undefined;

/** Which build of the client the benchmarks use, for the notes. */
export const SDK_BUILD =
  process.env.BENCH_SDK === 'source'
    ? 'packages/client/src run through tsx (BENCH_SDK=source)'
    : 'packages/client/src compiled like its tsup build (esbuild, no keepNames)';

/** The client module (built once per process). */
export function loadSdk(): Promise<Sdk> {
  loading ??=
    process.env.BENCH_SDK === 'source'
      ? import('../../packages/client/src/index.js')
      : buildClientBundle().then((file) => import(pathToFileURL(file).href) as Promise<Sdk>);
  return loading;
}

/** The transport a client uses: an undici dispatcher (Pool, in-process dispatcher) or a fetch. */
export type Wire = { dispatcher: Dispatcher } | { fetch: FetchLike };

/** A client with the demo admin key; `extra` adds options (heartbeat ttl, renewal tuning). */
export async function newClient(baseUrl: string, wire: Wire, extra: Partial<LeaseholdOptions> = {}): Promise<Leasehold> {
  const { Leasehold } = await loadSdk();
  return new Leasehold({ baseUrl, apiKey: API_KEY, ...wire, ...extra });
}

/** The benchmark run of the benchmark space: `run.claim(key).acquire()`. */
export function benchRun(lh: Leasehold) {
  return lh.space(SPACE_ID).run(RUN_ID, { holder: 'bench' });
}
