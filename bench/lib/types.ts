import { pairedRatios, summarize, type Summary } from './stats.js';

/** A target, checked on the median of the candidate's figure or of its paired ratio to the baseline. */
export interface Target {
  /** `value`: the figure itself; `ratio`: figure ÷ baseline, paired per round. */
  on: 'value' | 'ratio';
  op: '<' | '<=' | '>' | '>=';
  limit: number;
  /** How the target reads in the table, e.g. `≤ 1.15×`. */
  text: string;
}

/** One line of the table. */
export interface Row {
  /** The benchmark that produced it (`client`, `throughput`, ...). */
  bench: string;
  /** What is measured, e.g. `renew, wall per call`. */
  label: string;
  /** Unit of `value` and of the baseline, e.g. `µs/call`, `req/s`, `B/lease`. */
  unit: string;
  /** The candidate's figure: median and spread over rounds. */
  value: Summary;
  /** What the figure is compared with, measured in the same invocation. */
  baseline?: { label: string; value: Summary } | undefined;
  /** Figure ÷ baseline, one ratio per round, summarised. */
  ratio?: Summary | undefined;
  target?: Target | undefined;
  /** Whether the target is met (set by `finishRow`). */
  pass?: boolean | undefined;
  /** A short remark shown under the table. */
  note?: string | undefined;
}

/** What one benchmark hands back. */
export interface BenchOutput {
  rows: Row[];
  /** Context printed under the benchmark's rows (how it was measured, what was skipped). */
  notes: string[];
}

/** Settings shared by every benchmark of one invocation. */
export interface BenchContext {
  /** Tiny sizes and one round (the smoke test). */
  quick: boolean;
  /** Rounds per comparison (each round runs candidate and baseline back to back, order alternating). */
  rounds: number;
  /** Progress on stderr. */
  log(message: string): void;
}

/** A benchmark module's export. */
export interface Benchmark {
  /** CLI name for `--only`. */
  name: string;
  /** Heading in the table. */
  title: string;
  run(ctx: BenchContext): Promise<BenchOutput>;
}

/** One benchmark in `results/latest.json`. */
export interface BenchReport extends BenchOutput {
  name: string;
  title: string;
  durationMs: number;
  /** Set when the benchmark threw; its rows are then empty. */
  error?: string;
}

/** The file `bench/results/latest.json`. */
export interface ResultsFile {
  startedAt: string;
  finishedAt: string;
  node: string;
  platform: string;
  cpus: number;
  quick: boolean;
  rounds: number;
  benches: BenchReport[];
}

function holds(value: number, target: Target): boolean {
  switch (target.op) {
    case '<':
      return value < target.limit;
    case '<=':
      return value <= target.limit;
    case '>':
      return value > target.limit;
    case '>=':
      return value >= target.limit;
  }
}

/** Fills `pass` from the target and the medians. */
export function finishRow(row: Row): Row {
  if (!row.target) return row;
  const checked = row.target.on === 'ratio' ? row.ratio?.median : row.value.median;
  return { ...row, pass: checked !== undefined && Number.isFinite(checked) && holds(checked, row.target) };
}

/** `≤ 1.15×` style target on the paired ratio. */
export function ratioTarget(op: Target['op'], limit: number): Target {
  return { on: 'ratio', op, limit, text: `${opText(op)} ${limit}×` };
}

/** `< 20 ms` style target on the figure. */
export function valueTarget(op: Target['op'], limit: number, unit: string): Target {
  return { on: 'value', op, limit, text: `${opText(op)} ${limit} ${unit}` };
}

function opText(op: Target['op']): string {
  return op === '<=' ? '≤' : op === '>=' ? '≥' : op;
}

/** A row of `bench` comparing the rounds `a` (the candidate) with `b` (its baseline), paired per round. */
export function pairedRow(bench: string, label: string, unit: string, a: number[], baselineLabel: string, b: number[], target?: Target): Row {
  return finishRow({
    bench,
    label,
    unit,
    value: summarize(a),
    baseline: { label: baselineLabel, value: summarize(b) },
    ratio: summarize(pairedRatios(a, b)),
    target,
  });
}
