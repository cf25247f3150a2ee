/**
 * Process lifetime, in plain `node` child processes (vitest's own handles would hide a bug): a
 * pending acquire, run or consume keeps Node alive like a pending fetch does; a lease merely
 * being renewed in the background does not.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Leasehold } from '../../packages/client/src/index.js';
import { createLeaseholdServer, listen, type NodeListener } from '../../packages/server/src/index.js';

const child = fileURLToPath(new URL('./fixtures/lifetime-child.ts', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

interface Child {
  lines: string[];
  stderr: () => string;
  exited: Promise<number | null>;
}

function start(mode: string, env: Record<string, string>): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', child], {
    cwd: root,
    env: { ...process.env, ...env, LIFETIME_MODE: mode },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let buffer = '';
  let stderr = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let cut = buffer.indexOf('\n'); cut >= 0; cut = buffer.indexOf('\n')) {
      lines.push(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 1);
    }
  });
  proc.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    const killer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    proc.on('close', (code) => {
      clearTimeout(killer);
      resolve(code);
    });
  });
  return { lines, stderr: () => stderr, exited };
}

/** Polls `check` (bounded) until it holds. */
async function eventually(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('process lifetime (plain node child processes)', () => {
  let listener: NodeListener;
  let lh: Leasehold;
  let receives = 0;
  const server = createLeaseholdServer();

  beforeAll(async () => {
    listener = await listen(
      {
        handlePlain: (request) => {
          if (request.url.endsWith('/receive')) receives++;
          return server.handlePlain(request);
        },
      },
      { port: 0 },
    );
    lh = new Leasehold({ baseUrl: listener.url, apiKey: 'lh_test_admin' });
  });
  afterAll(async () => {
    await lh.close();
    await listener.close();
  });

  it('a claim.run(fn) queued behind another holder keeps the process alive until its turn, runs fn, then exits', async () => {
    const space = randomUUID();
    const holder = await lh.space(space).run(randomUUID(), { holder: 'test' }).claim('contended').acquire();
    const proc = start('queued-run', { LEASEHOLD_URL: listener.url, LEASEHOLD_SPACE: space, LEASEHOLD_RUN: randomUUID() });
    await eventually(async () => (await lh.space(space).claims.get('contended')).queueDepth >= 1, 'the child to queue');
    // Still queued, well after the 202: nothing but its wait is pending, and it must not have exited.
    await eventually(() => proc.lines.includes('acquiring'), 'the child to start');
    await holder.release();
    expect(await proc.exited).toBe(0);
    expect(proc.stderr()).toBe('');
    expect(proc.lines).toContainEqual(expect.stringMatching(/^ran \d+$/));
    expect(Number(proc.lines.find((line) => line.startsWith('ran '))?.slice(4))).toBeGreaterThan(holder.fence ?? 0);
  });

  it('a held lease that is only being renewed does not keep the process alive', async () => {
    const space = randomUUID();
    const proc = start('idle-lease', { LEASEHOLD_URL: listener.url, LEASEHOLD_SPACE: space, LEASEHOLD_RUN: randomUUID() });
    expect(await proc.exited).toBe(0);
    expect(proc.stderr()).toBe('');
    expect(proc.lines).toEqual(['held held']);
  });

  it('a consume waiting on an empty queue keeps the process alive until a message comes', async () => {
    await lh.spool('lifetime').create().catch(() => {});
    await lh.spool('lifetime').queue('inbox').put({ leaseTimeoutSeconds: 30 });
    const before = receives;
    const proc = start('consume', { LEASEHOLD_URL: listener.url, LEASEHOLD_SPACE: randomUUID(), LEASEHOLD_RUN: randomUUID() });
    await eventually(() => receives - before >= 3, 'three empty polls');
    await lh.spool('lifetime').queue('inbox').send({ hello: 'child' });
    expect(await proc.exited).toBe(0);
    expect(proc.stderr()).toBe('');
    expect(proc.lines).toEqual(['got {"hello":"child"}', 'consumed']);
  });
});
