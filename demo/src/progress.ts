import cliProgress from 'cli-progress';

/** Where the demo shows progress: live bars on a terminal, plain lines otherwise. */
export interface ProgressView {
  update(done: Record<string, number>): void;
  log(line: string): void;
  stop(): void;
}

/** Live bars, one per kind of work, with log lines printed above them. */
function barsView(totals: Record<string, number>): ProgressView {
  const bars = new cliProgress.MultiBar(
    { format: ' {name} |{bar}| {value}/{total}', hideCursor: true, clearOnComplete: false, barsize: 40 },
    cliProgress.Presets.shades_classic,
  );
  const byName = new Map(Object.entries(totals).map(([name, total]) => [name, bars.create(total, 0, { name: name.padEnd(8) })]));
  return {
    update: (done) => {
      for (const [name, value] of Object.entries(done)) byName.get(name)?.update(value);
    },
    log: (line) => bars.log(`${line}\n`),
    stop: () => bars.stop(),
  };
}

/** One line per second, and one per event. */
function linesView(totals: Record<string, number>): ProgressView {
  let last = 0;
  return {
    update: (done) => {
      const now = Date.now();
      if (now - last < 1000) return;
      last = now;
      console.log(`progress: ${Object.entries(done).map(([name, value]) => `${name} ${value}/${totals[name]}`).join(', ')}`);
    },
    log: (line) => console.log(line),
    stop: () => {},
  };
}

/** Bars when stdout is a terminal, plain lines when it is not (CI logs, pipes). */
export function progressView(totals: Record<string, number>): ProgressView {
  return process.stdout.isTTY ? barsView(totals) : linesView(totals);
}
