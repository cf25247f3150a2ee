import logUpdate from 'log-update';

/** Where the demo shows progress: live bars on a terminal, plain lines otherwise. */
export interface ProgressView {
  update(done: Record<string, number>): void;
  log(line: string): void;
  stop(): void;
}

function bar(name: string, value: number, total: number, width = 40): string {
  const filled = total === 0 ? width : Math.round((value / total) * width);
  return ` ${name.padEnd(9)}|${'█'.repeat(filled)}${'░'.repeat(width - filled)}| ${value}/${total}`;
}

/** Live bars, one per kind of work, redrawn in place; log lines go above them for good. */
function barsView(totals: Record<string, number>): ProgressView {
  let done: Record<string, number> = Object.fromEntries(Object.keys(totals).map((name) => [name, 0]));
  const draw = () => logUpdate(Object.entries(totals).map(([name, total]) => bar(name, done[name] ?? 0, total)).join('\n'));
  draw();
  return {
    update: (next) => {
      done = next;
      draw();
    },
    log: (line) => {
      logUpdate.clear();
      console.log(line);
      draw();
    },
    stop: () => logUpdate.done(),
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
