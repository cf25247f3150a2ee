import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { Leasehold } from '../../packages/client/src/index.js';
import { createLeaseholdServer, listen, type NodeListener } from '../../packages/server/src/index.js';

const child = fileURLToPath(new URL('./fixtures/close-child.ts', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

describe('close()', () => {
  let listener: NodeListener;
  const server = createLeaseholdServer();

  beforeAll(async () => {
    listener = await listen(server, { port: 0 });
  });
  afterAll(async () => {
    await listener.close();
  });

  it('leaves no timer or socket behind: a child process using the client exits on its own right after close()', async () => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child], {
      cwd: root,
      env: { ...process.env, LEASEHOLD_URL: listener.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let closedAt: number | undefined;
    proc.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (closedAt === undefined && stdout.includes('"closed":true')) closedAt = performance.now();
    });
    proc.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const killer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      proc.on('close', (exitCode) => {
        clearTimeout(killer);
        resolve(exitCode);
      });
    });
    const exitedAfterMs = performance.now() - (closedAt ?? Number.NaN);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout.trim()) as { before: number; waited: string; heldStatus: string; receivedStatus: string; resources: string[] };
    expect(report.before).toBeGreaterThanOrEqual(3); // space claim + queued claim + spool lease + task claim
    expect(report.waited).toBe('ClientClosedError');
    expect(report.heldStatus).toBe('released');
    expect(report.receivedStatus).toBe('released');
    expect(report.resources.filter((r) => /Timeout|Immediate|TCP|Socket/i.test(r))).toEqual([]);
    expect(exitedAfterMs).toBeLessThan(3000);
  });

  it('after close, calls reject with ClientClosedError, and close is idempotent', async () => {
    const lh = new Leasehold({ baseUrl: listener.url, apiKey: 'lh_test_admin' });
    await lh.tasks.create({ title: 'x' });
    await Promise.all([lh.close(), lh.close()]);
    await expect(lh.tasks.create({ title: 'y' })).rejects.toMatchObject({ name: 'ClientClosedError' });
  });

  it('sends through a caller’s dispatcher and leaves it open on close', async () => {
    const agent = new Agent({ keepAliveTimeout: 1000 });
    const lh = new Leasehold({ baseUrl: listener.url, apiKey: 'lh_test_admin', dispatcher: agent });
    await lh.tasks.create({ title: 'through the caller’s agent' });
    await lh.close();
    expect(agent.closed).toBe(false);
    const again = new Leasehold({ baseUrl: listener.url, apiKey: 'lh_test_admin', dispatcher: agent });
    expect((await again.tasks.create({ title: 'still open' })).task.title).toBe('still open');
    await again.close();
    await agent.close();
  });
});
