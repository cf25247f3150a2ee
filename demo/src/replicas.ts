import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listeningUrl, nginxConfig, spawnLikeSystemd, startNginx } from './deploy-files.js';

/** A free TCP port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** What the kill loop did. */
export interface ChaosTally {
  sigkill: number;
  sigterm: number;
  restarts: number;
  /** Restarts that failed to listen again (each is retried). */
  failedStarts: number;
}

/**
 * N server processes on one store behind nginx, each started as the systemd unit starts it
 * (deploy/systemd, with `--control` for the demo's levers), nginx from deploy/nginx. `chaos`
 * kills a random process every `everyMs` — SIGKILL or SIGTERM, at random — and restarts it on
 * its port; the others keep serving and nginx passes refused connections to them.
 */
export class ReplicaSet {
  readonly tally: ChaosTally = { sigkill: 0, sigterm: 0, restarts: 0, failedStarts: 0 };
  /** Processes the kill loop has signalled: down from that moment, whether or not they have exited yet. */
  private readonly signalled = new WeakSet<ChildProcess>();
  /** Every server process spawned and not yet exited, serving or still starting (a restart in flight). */
  private readonly spawned = new Set<ChildProcess>();
  private readonly children: (ChildProcess | undefined)[];
  private nginx: ChildProcess | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private seed = 0x5eed;

  private constructor(
    private readonly store: string,
    private readonly ports: number[],
    private readonly dir: string,
    /** The balancer's URL: what clients use. */
    readonly url: string,
    private readonly log: (line: string) => void,
  ) {
    this.children = ports.map(() => undefined);
  }

  /** Starts `count` servers on `store` and nginx in front of them. */
  static async start(store: string, count: number, log: (line: string) => void = () => {}): Promise<ReplicaSet> {
    const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
    const listen = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'lh-replicas-'));
    const set = new ReplicaSet(store, ports, dir, `http://127.0.0.1:${listen}`, log);
    // The first process migrates alone; the others then find nothing to apply.
    await set.startOne(0);
    await Promise.all(ports.slice(1).map((_, i) => set.startOne(i + 1)));
    set.nginx = startNginx(dir, nginxConfig(listen, ports));
    set.nginx.stderr?.on('data', (chunk: Buffer) => log(`nginx: ${chunk.toString('utf8').trim()}`));
    await set.waitForBalancer();
    return set;
  }

  /** Kills a random process every `everyMs` (SIGKILL or SIGTERM) and restarts it. */
  chaos(everyMs: number): void {
    this.timer = setInterval(() => this.killOne(), everyMs);
  }

  /** The processes' ports. */
  get upstreams(): readonly number[] {
    return this.ports;
  }

  /** Stops the kill loop, nginx and every process (SIGTERM: drained), and removes the temp prefix. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    // Every process spawned, not only those serving: a restart still starting when the set stops
    // would otherwise register itself afterwards and outlive the demo.
    const exits = [...this.spawned, this.nginx].map((child) => (child === undefined || child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => {
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill(child === this.nginx ? 'SIGQUIT' : 'SIGTERM');
    })));
    await Promise.all(exits);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private random(): number {
    let t = (this.seed += 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  private killOne(): void {
    // Serving: started, not exited, and not already signalled (a SIGTERMed process drains and takes
    // no new connection; a SIGKILLed one has not exited yet): those count as down.
    const live = this.children
      .map((child, i) => ({ child, i }))
      .filter(({ child }) => child !== undefined && child.exitCode === null && child.signalCode === null && !this.signalled.has(child));
    // Keep one process up at least: the balancer needs somewhere to send the requests.
    if (live.length < 2) return;
    const { child, i } = live[Math.floor(this.random() * live.length)] as { child: ChildProcess; i: number };
    const signal = this.random() < 0.5 ? 'SIGKILL' : 'SIGTERM';
    if (signal === 'SIGKILL') this.tally.sigkill++;
    else this.tally.sigterm++;
    this.log(`${signal} the server on port ${this.ports[i]}`);
    this.signalled.add(child);
    child.kill(signal);
  }

  private async startOne(i: number): Promise<void> {
    const port = this.ports[i] as number;
    for (let attempt = 0; ; attempt++) {
      const child = spawnLikeSystemd(port, this.store, ['--control']);
      this.spawned.add(child);
      child.once('exit', () => this.spawned.delete(child));
      child.stderr?.on('data', () => {});
      try {
        await listeningUrl(child, 30_000);
      } catch (error) {
        this.tally.failedStarts++;
        child.kill('SIGKILL');
        if (attempt >= 5 || this.stopping) throw error;
        continue;
      }
      // Request logs are not the demo's output: keep the pipe drained.
      child.stdout?.on('data', () => {});
      // Stopped while this one started: stop() has signalled it already; don't serve or restart it.
      if (this.stopping) return;
      this.children[i] = child;
      child.once('exit', () => {
        this.children[i] = undefined;
        if (this.stopping) return;
        this.tally.restarts++;
        this.startOne(i).catch((error: unknown) => this.log(`restart on ${port} failed: ${(error as Error).message}`));
      });
      return;
    }
  }

  private async waitForBalancer(): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
      try {
        if ((await fetch(`${this.url}/readyz`)).ok) return;
      } catch {
        // nginx is not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`nginx at ${this.url} did not answer`);
  }
}
