/**
 * A worker with a stable session is SIGKILLed and restarts. Its new heartbeats must not keep the
 * dead process's leases alive (they expire within one term), while a replay of a persisted
 * operation (FileIdempotencyStore + operationId) re-adopts its lease, which then stays held.
 * Real processes over real HTTP; the server's clock is manual and moves only between the
 * restarted worker's heartbeats, so nothing depends on how fast the machine is.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMatrixServer, disposeMatrixServers } from '../support/matrix-server.js';
import { exited, onLines, spawnFixture } from './support/children.js';
import { observedListener } from './support/observed-listener.js';

const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const dirs: string[] = [];
afterAll(async () => {
  await disposeMatrixServers();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Resolves with the first stdout line of `child` that starts with `prefix`. */
function lineOf(child: ReturnType<typeof spawnFixture>, prefix: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    onLines(child, (line) => {
      if (line.startsWith(prefix)) resolve(line.split(' ').slice(1));
    });
    child.once('close', (code) => reject(new Error(`worker exited (${code}) before ${prefix}: ${stderr}`)));
  });
}

describe('a SIGKILLed worker restarting with the same session', () => {
  it('lets the dead process\'s untracked leases expire within one term, and keeps the lease its replayed operation re-adopted', async () => {
    const server = await createMatrixServer({ clock: 'manual' });
    const session = `sess_${randomUUID().replaceAll('-', '')}`;
    let heartbeats = 0;
    const http = await observedListener(server, {
      onExchange: (exchange) => {
        if (exchange.path.endsWith('/claims/heartbeat') && exchange.request.headers.authorization) heartbeats++;
      },
    });
    const store = await mkdtemp(join(tmpdir(), 'leasehold-ghost-'));
    dirs.push(store);
    const env = { GHOST_URL: http.url, GHOST_SESSION: session, GHOST_STORE: store, GHOST_SPACE: SPACE, GHOST_RUN: randomUUID() };
    try {
      const first = spawnFixture('ghost-worker.ts', { env: { ...env, GHOST_MODE: 'first' } });
      const [replayedId, orphanId] = await lineOf(first, 'HELD ');
      first.kill('SIGKILL');
      await exited(first);

      const restarted = spawnFixture('ghost-worker.ts', { env: { ...env, GHOST_MODE: 'restart' } });
      const [readoptedId, freshId, replayedFlag] = await lineOf(restarted, 'READY ');
      expect(readoptedId).toBe(replayedId);
      expect(replayedFlag).toBe('true');

      // 8 s of server time (the leases last 5 s), moved 2 s at a time, each step after one more
      // heartbeat of the restarted worker: what it tracks stays held, nothing else is renewed.
      for (let step = 0; step < 4; step++) {
        const seen = heartbeats;
        const started = performance.now();
        while (heartbeats === seen) {
          if (performance.now() - started > 15_000) throw new Error('the restarted worker stopped heartbeating');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await server.control.advanceClock(2_000);
      }
      const holderOf = async (key: string): Promise<string | undefined> => {
        const answer = await server.handle(
          new Request(`http://leasehold.test/v1/spaces/${SPACE}/claims/${key}`, { headers: { Authorization: 'Bearer lh_test_admin' } }),
        );
        return answer.status === 200 ? ((await answer.json()) as { claimId: string }).claimId : undefined;
      };
      expect(await holderOf('orphan')).toBeUndefined();
      expect(orphanId).toMatch(/^clm_/);
      expect(await holderOf('replayed')).toBe(replayedId);
      expect(await holderOf('fresh')).toBe(freshId);
      restarted.kill('SIGTERM');
      await exited(restarted);
    } finally {
      await http.close();
    }
  }, 60_000);
});
