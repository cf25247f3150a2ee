/** A sample summarised: the median and its spread. */
export interface Summary {
  /** How many samples. */
  n: number;
  median: number;
  min: number;
  max: number;
  /** First and third quartiles (linear interpolation). */
  q1: number;
  q3: number;
}

/** The `q`-quantile (0–1) of already sorted numbers, by linear interpolation. */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (at - lo);
}

/** The median of `values` (NaN when empty). */
export function median(values: readonly number[]): number {
  return quantileSorted([...values].sort((a, b) => a - b), 0.5);
}

/** Median, min–max and quartiles of `values`. */
export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: quantileSorted(sorted, 0.5),
    min: sorted.length ? (sorted[0] as number) : Number.NaN,
    max: sorted.length ? (sorted[sorted.length - 1] as number) : Number.NaN,
    q1: quantileSorted(sorted, 0.25),
    q3: quantileSorted(sorted, 0.75),
  };
}

/** Element-wise ratios `a[i] / b[i]` (rounds paired in time, so shared noise cancels). */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  if (a.length !== b.length) throw new Error(`pairedRatios: ${a.length} vs ${b.length} samples`);
  return a.map((x, i) => x / (b[i] as number));
}

/** A single measurement as a summary (n = 1). */
export function single(value: number): Summary {
  return { n: 1, median: value, min: value, max: value, q1: value, q3: value };
}
