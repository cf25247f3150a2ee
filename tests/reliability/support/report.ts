/** Collects a suite's numbers and prints them once, from an `afterAll`. */
export class SuiteReport {
  private readonly rows: Array<[string, unknown]> = [];
  private readonly started = performance.now();

  constructor(private readonly title: string) {}

  /** Records (or replaces) one number or fact. */
  set(name: string, value: unknown): void {
    const at = this.rows.findIndex(([row]) => row === name);
    if (at >= 0) this.rows[at] = [name, value];
    else this.rows.push([name, value]);
  }

  /** Adds to a counter. */
  add(name: string, by = 1): void {
    const at = this.rows.findIndex(([row]) => row === name);
    const current = at >= 0 ? Number(this.rows[at]?.[1] ?? 0) : 0;
    this.set(name, current + by);
  }

  /** The report as text. */
  toString(): string {
    const width = Math.max(...this.rows.map(([name]) => name.length), 10);
    const lines = this.rows.map(([name, value]) => `  ${name.padEnd(width)}  ${typeof value === 'string' ? value : JSON.stringify(value)}`);
    const seconds = ((performance.now() - this.started) / 1000).toFixed(1);
    return [`\n=== ${this.title} (${seconds} s) ===`, ...lines].join('\n');
  }

  /** Prints the report (call from `afterAll`). */
  print(): void {
    console.log(this.toString());
  }
}
