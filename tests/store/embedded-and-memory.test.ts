/**
 * The embedded store keeps its state in a directory across reopenings; the memory store answers
 * synchronously through the operations interface (no promise on its fast path).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ManualClock, type Claim } from '../../packages/server/src/engine/index.js';
import { MemoryStore, openStore, type Store } from '../../packages/server/src/store/index.js';

const SPACE = '6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f';
const SCOPE = '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e';
const encode = (o: { ok: true; value: unknown } | { ok: false; error: unknown }) => (o.ok ? o.value : o.error);

async function admin(store: Store) {
  const auth = await store.authenticate('Bearer lh_test_admin');
  if (!auth.ok) throw new Error('refused');
  return auth.credential;
}

it('a directory store keeps claims, tokens, fences and idempotent answers across reopening', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-embedded-'));
  try {
    let store = await openStore(dir, { clock: 'manual', sweepIntervalMs: 0 });
    let credential = await admin(store);
    const idempotency = { key: 'durable-1', fingerprint: 'f' };
    const request = { credential, operationId: 'acquireSpaceClaim', idempotency, isStorable: () => true };
    const acquire = (s: Store) =>
      s.execute(request, (ops) => ops.claims.acquire({ credential, spaceId: SPACE, key: 'k', scopeId: SCOPE, holder: 'w', holderSession: 's' }), encode);
    const first = (await acquire(store)).answer as Claim;
    await store.close();
    store = await openStore(dir, { clock: 'manual', sweepIntervalMs: 0 });
    credential = await admin(store);
    const replay = await acquire(store);
    expect(replay).toEqual({ answer: first, replayed: true });
    const read = (await store.execute({ credential, operationId: 'getSpaceClaim', isStorable: () => false }, (ops) =>
      ops.claims.get({ credential, spaceId: SPACE, key: 'k' }), encode)).answer as Claim;
    expect(read).toMatchObject({ claimId: first.claimId, fence: first.fence, expiresAt: first.expiresAt });
    const renewed = await store.execute({ credential, operationId: 'renewSpaceClaim', isStorable: () => false }, (ops) =>
      ops.claims.renew({ credential, spaceId: SPACE, key: 'k', token: first.token as string }), encode);
    expect(renewed.answer).toMatchObject({ claimId: first.claimId, status: 'held' });
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);

it('the memory store answers synchronously: no promise unless the operation or a hook waits', () => {
  const store = new MemoryStore({ clock: new ManualClock() });
  const credential = (store.authenticate('Bearer lh_test_admin') as { ok: true; credential: never }).credential;
  const result = store.execute(
    { credential, operationId: 'acquireSpaceClaim', idempotency: { key: 'k1', fingerprint: 'f' }, isStorable: () => true },
    (ops) => ops.claims.acquire({ credential, spaceId: SPACE, key: 'k', scopeId: SCOPE, holder: 'w', holderSession: 's' }),
    encode,
  );
  expect(result).not.toBeInstanceOf(Promise);
  expect(result).toMatchObject({ replayed: false, answer: { status: 'held' } });
  const replay = store.execute(
    { credential, operationId: 'acquireSpaceClaim', idempotency: { key: 'k1', fingerprint: 'f' }, isStorable: () => true },
    () => {
      throw new Error('must not run');
    },
    encode,
  );
  expect(replay).toMatchObject({ replayed: true });
});
