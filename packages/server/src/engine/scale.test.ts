import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import type { Caller } from './credentials.js';
import { Engine } from './engine.js';
import { seededRandom } from './random.js';
import { RUN_A, SPACE, T0 } from './test-fixtures.js';

// Sanity checks of the performance design with generous bounds (the benchmarks come later):
// heartbeat linear in the caller's leases, O(1) ticks, linear mass expiry.

function engineWith(count: number, credentialId = 'cred_bench'): { engine: Engine; clock: ManualClock; credential: Caller } {
  const clock = new ManualClock(T0);
  const engine = new Engine({ clock, random: seededRandom(5) });
  const credential: Caller = { credentialId, accountId: 'acct_demo', spaces: '*' };
  for (let i = 0; i < count; i++) {
    engine.claims.acquire({ credential, spaceId: SPACE, key: `k/${i}`, scopeId: RUN_A, holder: 'w', holderSession: 's', leaseSeconds: 60 });
  }
  return { engine, clock, credential };
}

// Correctness at scale only: how fast these run is measured by `pnpm bench -- --only engine`
// (bench/engine-scale.ts), never asserted here, where a busy machine would fail it.
describe('scale', () => {
  it('heartbeats 10,000 leases of one credential', () => {
    const { engine, clock, credential } = engineWith(10_000);
    clock.advance(1_000);
    expect(engine.heartbeat({ credential, ttl: 60 }).results.length).toBe(10_000);
  });

  it('a tick with nothing due expires nothing, however many leases are held (its cost: bench/engine-scale.ts)', () => {
    const { engine, clock } = engineWith(20_000);
    for (let i = 0; i < 100_000; i++) {
      clock.advance(0.1);
      expect(engine.processExpirations()).toBe(0);
    }
    expect(engine.stats().held).toBe(20_000);
  });

  it('expires 10,000 leases at once', () => {
    const { engine, clock } = engineWith(10_000);
    clock.advance(60_000);
    expect(engine.processExpirations()).toBe(10_000);
    expect(engine.stats()).toMatchObject({ held: 0, tombstones: 10_000 });
  });
});
