/**
 * Heap hygiene of the processes: the server's heap, measured in its own process with
 * `--expose-gc` (`fixtures/heap-server.ts`, on the memory store, driven by a real client over
 * HTTP from here), returns to within 10% of its start after a long run; a client process's task
 * claim/release cycles leave no Node timer lists behind (`fixtures/heap-client.ts`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closed, onLines, spawnFixture } from './support/children.js';
import { heapRun, type HeapRun } from './support/heap-workload.js';
import { SuiteReport } from './support/report.js';
import { size, timeout } from './support/sizes.js';

const HEAP_REPEATED_CYCLES = size(2_000, 20_000);
const HEAP_DISTINCT_CYCLES = size(8_000, 40_000);
const CLIENT_CLAIM_CYCLES = size(3_000, 30_000);

const report = new SuiteReport('reliability: heap hygiene');
afterAll(() => report.print());

interface ClientProbe {
  baseline: number;
  final: number;
  timersListsBefore: number;
  timersListsAfter: number;
}

/** Runs `fixtures/heap-client.ts` (a client's task claim/release cycles, measured in its own process). */
async function clientProbe(cycles: number): Promise<ClientProbe> {
  const child = spawnFixture('heap-client.ts', { nodeFlags: ['--expose-gc'], args: [String(cycles)] });
  let line = '';
  let stderr = '';
  onLines(child, (l) => (line = l));
  child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const { code } = await closed(child);
  if (code !== 0) throw new Error(`heap-client exited ${code}: ${stderr.slice(-2000)}`);
  return JSON.parse(line) as ClientProbe;
}

describe('heap hygiene', () => {
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

  // Both runs go at once (their servers on the other core), started by whichever heap test comes
  // first — after the resource test, whose baseline must not see their process handles.
  let runs: { repeated: Promise<HeapRun>; distinct: Promise<HeapRun>; client: Promise<ClientProbe> } | undefined;
  const heapRuns = () =>
    (runs ??= {
      client: clientProbe(CLIENT_CLAIM_CYCLES),
      repeated: heapRun('repeated', HEAP_REPEATED_CYCLES),
      distinct: heapRun('distinct', HEAP_DISTINCT_CYCLES),
    });

  it(
    'server heap (its own process, --expose-gc): back within 10% of its start after a long run over a fixed set of keys',
    async () => {
      const result = await heapRuns().repeated;
      const growth = (result.final - result.baseline) / result.baseline;
      report.set(
        `server heap, ${HEAP_REPEATED_CYCLES} cycles over 16 keys: baseline / peak / final (growth)`,
        `${mb(result.baseline)} / ${mb(result.peak)} / ${mb(result.final)} (${(growth * 100).toFixed(1)}%)`,
      );
      expect({ ...result.stats, fence: 0 }).toEqual({ held: 0, queued: 0, tombstones: 0, heapSize: 0, fence: 0, messages: 0, idempotencyRecords: 0 });
      expect(result.peak - result.baseline, 'the run held memory worth measuring at its peak').toBeGreaterThan(result.baseline * 0.2);
      expect(growth).toBeLessThan(0.1);
    },
    timeout(180_000, 600_000),
  );

  it(
    'server heap (its own process, --expose-gc): back within 10% of its start after a long run over keys used once each',
    async () => {
      const result = await heapRuns().distinct;
      const growth = (result.final - result.baseline) / result.baseline;
      report.set(
        `server heap, ${HEAP_DISTINCT_CYCLES} cycles, each on a new key: baseline / peak / final (growth)`,
        `${mb(result.baseline)} / ${mb(result.peak)} / ${mb(result.final)} (${(growth * 100).toFixed(1)}%, ${Math.round((result.final - result.baseline) / HEAP_DISTINCT_CYCLES)} B per key)`,
      );
      expect({ ...result.stats, fence: 0 }).toEqual({ held: 0, queued: 0, tombstones: 0, heapSize: 0, fence: 0, messages: 0, idempotencyRecords: 0 });
      expect(
        growth,
        'every key ever released keeps its state (the last release and its observation) and every space and cancelled run stays, after every lease, tombstone and idempotency record is gone',
      ).toBeLessThan(0.1);
    },
    timeout(240_000, 900_000),
  );

  it(
    `client heap (its own process, --expose-gc): ${CLIENT_CLAIM_CYCLES} task claim/release cycles leave no timer lists behind`,
    async () => {
      const result = await heapRuns().client;
      const lists = result.timersListsAfter - result.timersListsBefore;
      report.set(
        `client heap, ${CLIENT_CLAIM_CYCLES} task claim/release cycles: baseline / final / Node TimersLists added`,
        `${mb(result.baseline)} / ${mb(result.final)} / ${lists}`,
      );
      expect(
        lists,
        'each claim arms the scheduler\'s timer with a jittered delay of its own (5 min ± 10% for a task claim); Node keeps one TimersList per distinct delay until that delay has passed, cleared or not',
      ).toBeLessThan(100);
    },
    timeout(120_000, 600_000),
  );
});
