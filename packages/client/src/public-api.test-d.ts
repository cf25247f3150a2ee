// Type-level tests of the public surface: checked by `tsc` (and `vitest --typecheck`), never executed.
import { describe, expectTypeOf, it } from 'vitest';
import {
  ApiError,
  ClientClosedError,
  ConflictError,
  Lease,
  Leasehold,
  LeaseholdError,
  LeaseLostError,
  SpaceLease,
  SpoolLease,
  TaskLease,
  UnusableLeaseError,
  type Wire,
} from './index.js';

// The handles and option types are `Leasehold.<Name>`, the wire types `Wire.<Name>` (the root stays small).
type ClaimHandle = Leasehold.ClaimHandle;
type ClaimListPromise = Leasehold.ClaimListPromise;
type ClaimPage = Leasehold.ClaimPage;
type Run = Leasehold.Run;
type Space = Leasehold.Space;
type SpaceClaims = Leasehold.SpaceClaims;
type Spool = Leasehold.Spool;
type SpoolQueue = Leasehold.SpoolQueue;
type Tasks = Leasehold.Tasks;
type ClaimedTask = Leasehold.ClaimedTask;
type TaskWithEtag = Leasehold.TaskWithEtag;
type TaskWorkContext = Leasehold.TaskWorkContext;
type Claim = Wire.Claim;
type HeartbeatResponse = Wire.HeartbeatResponse;
type Message = Wire.Message;
type ScopeCancellation = Wire.ScopeCancellation;
type Task = Wire.Task;

declare const lh: Leasehold;

describe('public surface (types)', () => {
  it('Leasehold and its entry points', () => {
    expectTypeOf(lh.session).toEqualTypeOf<string>();
    expectTypeOf(lh.space).parameters.toEqualTypeOf<[spaceId: string]>();
    expectTypeOf(lh.space('s')).toEqualTypeOf<Space>();
    expectTypeOf(lh.space('s').claims).toEqualTypeOf<SpaceClaims>();
    expectTypeOf(lh.space('s').run('r', { holder: 'w' })).toEqualTypeOf<Run>();
    expectTypeOf(lh.space('s').run).parameter(1).toHaveProperty('holderSession');
    expectTypeOf(lh.space('s').run('r', { holder: 'w' }).claim('k', { leaseSeconds: 30 })).toEqualTypeOf<ClaimHandle>();
    expectTypeOf(lh.space('s').cancelRun('r')).resolves.toEqualTypeOf<ScopeCancellation>();
    expectTypeOf(lh.heartbeat({ ttl: 30, details: { done: 1 }, claimId: 'clm_1' })).resolves.toEqualTypeOf<HeartbeatResponse>();
    expectTypeOf(lh.tasks).toEqualTypeOf<Tasks>();
    expectTypeOf(lh.spool('b')).toEqualTypeOf<Spool>();
    expectTypeOf(lh.spool('b').queue('q')).toEqualTypeOf<SpoolQueue>();
    expectTypeOf(lh.close()).resolves.toBeVoid();
    expectTypeOf(lh).toMatchTypeOf<AsyncDisposable>();
  });

  it('claims: acquire, tryAcquire, run, list, get', () => {
    const claim = lh.space('s').run('r', { holder: 'w' }).claim('k');
    expectTypeOf(claim.acquire({ signal: AbortSignal.timeout(1) })).resolves.toEqualTypeOf<SpaceLease>();
    expectTypeOf(claim.tryAcquire()).resolves.toEqualTypeOf<SpaceLease | null>();
    // claim.run hands fn the lease held: its fence is known (issue 15 item 7; was `number | null`).
    expectTypeOf(claim.run(async (lease) => lease.fence)).resolves.toEqualTypeOf<number>();
    expectTypeOf(claim.run(() => 'sync')).resolves.toEqualTypeOf<string>();
    expectTypeOf(claim.acquire).parameter(0).toMatchTypeOf<{ idempotencyKey?: string; operationId?: string } | undefined>();
    const list = lh.space('s').claims.list({ prefix: 'a/', limit: 10 });
    expectTypeOf(list).toEqualTypeOf<ClaimListPromise>();
    expectTypeOf(list).toMatchTypeOf<AsyncIterable<Claim>>();
    expectTypeOf(list).toMatchTypeOf<PromiseLike<ClaimPage>>();
    expectTypeOf<Awaited<typeof list>>().toEqualTypeOf<ClaimPage>();
    expectTypeOf<ClaimPage['data']>().toEqualTypeOf<Claim[]>();
    expectTypeOf(lh.space('s').claims.get('k')).resolves.toEqualTypeOf<Claim>();
    expectTypeOf<SpaceLease>().toMatchTypeOf<Lease>();
    expectTypeOf<SpaceLease['signal']>().toEqualTypeOf<AbortSignal>();
    expectTypeOf<SpaceLease['fence']>().toEqualTypeOf<number | null>();
  });

  it('tasks: raw calls, claim and work', () => {
    expectTypeOf(lh.tasks.create({ title: 't' })).resolves.toEqualTypeOf<TaskWithEtag>();
    expectTypeOf(lh.tasks.get(1)).resolves.toEqualTypeOf<TaskWithEtag>();
    expectTypeOf(lh.tasks.claim(1, { etag: '"e"', operationId: 'op' })).resolves.toEqualTypeOf<ClaimedTask>();
    expectTypeOf<ClaimedTask['lease']>().toEqualTypeOf<TaskLease>();
    expectTypeOf(lh.tasks.update).parameter(1).toHaveProperty('status');
    expectTypeOf(lh.tasks.work(1, async (ctx) => ctx.task.id)).resolves.toEqualTypeOf<number>();
    expectTypeOf<TaskWorkContext['lease']>().toEqualTypeOf<TaskLease>();
    expectTypeOf<TaskWorkContext['task']>().toEqualTypeOf<Task>();
    expectTypeOf<TaskWorkContext['addNote']>().returns.resolves.toHaveProperty('text');
    expectTypeOf(lh.tasks.work).parameter(2).toMatchTypeOf<{ operationId?: string } | undefined>();
  });

  it('spools: receive and consume', () => {
    const queue = lh.spool('b').queue('q');
    expectTypeOf(queue.receive()).resolves.toEqualTypeOf<SpoolLease | null>();
    expectTypeOf<SpoolLease['message']>().toEqualTypeOf<Message>();
    expectTypeOf(queue.consume(async (message, { lease, signal }) => {
      expectTypeOf(message).toEqualTypeOf<Message>();
      expectTypeOf(lease).toEqualTypeOf<SpoolLease>();
      expectTypeOf(signal).toEqualTypeOf<AbortSignal>();
    }, { concurrency: 4, signal: AbortSignal.timeout(1), pollIntervalMs: 500 })).resolves.toBeVoid();
  });

  it('errors', () => {
    expectTypeOf<ConflictError>().toMatchTypeOf<ApiError>();
    expectTypeOf<LeaseLostError['reason']>().toEqualTypeOf<'expired' | 'lost' | 'stale' | 'cancelled' | 'released' | 'deadline'>();
    expectTypeOf<UnusableLeaseError>().toMatchTypeOf<LeaseholdError>();
    expectTypeOf<ClientClosedError>().toMatchTypeOf<LeaseholdError>();
  });
});
