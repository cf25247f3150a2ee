import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suites that take longest (seconds of one worker in a fresh-clone CI run beside two CPU
 * hogs, 2026-12-07, summed over the store projects they run in), longest first. Without timings
 * of its own (a fresh clone has no vitest cache) vitest queues the projects one after another
 * and each by file size, so a minute-long suite of the last project (the Python SDK's pytest run
 * on PostgreSQL) started when the other workers had nothing left: a tail of one busy worker.
 * Starting the longest first keeps every worker busy to the end.
 */
const LONGEST_FIRST = [
  'tests/ha/failover.test.ts', // 235 s
  'tests/reliability/bad-input.test.ts', // 169 s over three stores
  'tests/python/python-sdk.test.ts', // 130 s over two
  'tests/packaging/consumer.test.ts', // 111 s
  'tests/server/status-matrix.test.ts', // 108 s over three
  'tests/bench/sql-bench-smoke.test.ts', // 96 s
  'tests/reliability/crash-recovery.test.ts',
  'tests/reliability/chaos.test.ts',
  'tests/server/console-browser.test.ts',
  'tests/server/stored-json.test.ts',
  'tests/reliability/hygiene.test.ts',
  'tests/reliability/heap.test.ts',
  'tests/client/server-outage.test.ts',
  'tests/demo/demo.test.ts',
];

/** Vitest's sequencer with the suites known to be longest moved to the front of the queue, across projects (longest-first scheduling). */
export default class SlowFirstSequencer extends BaseSequencer {
  /** Vitest's order (failed first, then by cached duration or file size), with LONGEST_FIRST's suites ahead of it in that list's order. */
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const order = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FIRST.indexOf(relative(this.ctx.config.root, spec.moduleId));
      return index < 0 ? LONGEST_FIRST.length : index;
    };
    return order.map((spec, at) => ({ spec, at, rank: rank(spec) })).sort((a, b) => a.rank - b.rank || a.at - b.at).map(({ spec }) => spec);
  }
}
