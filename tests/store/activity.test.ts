/**
 * The activity views (the console's reads) through the operations interface, on memory, PGlite
 * and PostgreSQL: active spaces, a space's claims, waiters and losses, lease events with a
 * cursor, queue statistics with samples, a queue's leased messages and their holders, heartbeat
 * rates per session. Each SQL transcript must
 * equal the memory engine's.
 */
import { expect } from 'vitest';
import type { Claim, LeaseEvent, Message, ReceivedMessage } from '../../packages/server/src/engine/index.js';
import { SCOPE, SPACE, SPACE_B, describeStores, type World } from './support/world.js';

const acquire = (w: World, key: string, holder: string, extra: Record<string, unknown> = {}) =>
  w.ok((ops) => ops.claims.acquire({ credential: w.admin, spaceId: SPACE, key, scopeId: SCOPE, holder, holderSession: `sess-${holder}`, ...extra }));
const events = (w: World, cursor?: string, limit?: number, credential = w.admin) =>
  w.ok((ops) => ops.activity.events({ credential, cursor, limit }));
const brief = (list: LeaseEvent[]) => list.map((e) => `${e.type}:${e.kind}:${e.holder ?? e.taskId ?? e.queue}:${e.reason ?? ''}`);

describeStores('activity', {
  'spaces, claims with waiters, lost claims and lease events': async (w) => {
    const first = (await acquire(w, 'k1', 'w1', { leaseSeconds: 10 })) as Claim;
    const waiting = await acquire(w, 'k1', 'w2', { wait: true });
    expect(waiting.status).toBe('queued');
    await acquire(w, 'k1', 'w4', { wait: true, leaseSeconds: 60 });
    const other = (await acquire(w, 'k2', 'w3')) as Claim;
    await w.ok((ops) => ops.claims.acquire({ credential: w.admin, spaceId: SPACE_B, key: 'b', scopeId: SCOPE, holder: 'wb', holderSession: 'sb' }));

    expect(await w.ok((ops) => ops.activity.listSpaces({ credential: w.admin }))).toEqual({
      object: 'list',
      data: [
        { object: 'space', spaceId: SPACE, held: 2, waiting: 2, lost: 0 },
        { object: 'space', spaceId: SPACE_B, held: 1, waiting: 0, lost: 0 },
      ],
      nextCursor: null,
    });
    const page = await w.ok((ops) => ops.activity.listSpaces({ credential: w.admin, limit: 1 }));
    expect(page.data.map((s) => s.spaceId)).toEqual([SPACE]);
    const rest = await w.ok((ops) => ops.activity.listSpaces({ credential: w.admin, cursor: page.nextCursor as string }));
    expect(rest).toMatchObject({ data: [{ spaceId: SPACE_B }], nextCursor: null });
    expect((await w.ok((ops) => ops.activity.listSpaces({ credential: w.oneSpace }))).data.map((s) => s.spaceId)).toEqual([SPACE]);
    expect((await w.ok((ops) => ops.activity.listSpaces({ credential: w.other }))).data).toEqual([]);

    const activity = await w.ok((ops) => ops.activity.spaceActivity({ credential: w.admin, spaceId: SPACE }));
    expect(activity.claims.map((c) => [c.key, c.holder, c.queueDepth])).toEqual([['k1', 'w1', 2], ['k2', 'w3', 0]]);
    expect(activity.waiters.map((x) => [x.key, x.holder, x.position])).toEqual([['k1', 'w2', 1], ['k1', 'w4', 2]]);
    expect(activity.lost).toEqual([]);
    expect(await w.run((ops) => ops.activity.spaceActivity({ credential: w.oneSpace, spaceId: SPACE_B }))).toMatchObject({ code: 'space_not_found' });
    expect(await w.run((ops) => ops.activity.spaceActivity({ credential: w.admin, spaceId: 'nope' }))).toMatchObject({ param: 'spaceId' });

    await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: 30, claimId: other.claimId, details: { done: 3, of: 9 } }));
    await w.advance(11_000);
    const after = await w.ok((ops) => ops.activity.spaceActivity({ credential: w.admin, spaceId: SPACE }));
    expect(after.claims.map((c) => [c.key, c.holder, c.details])).toEqual([['k1', 'w2', null], ['k2', 'w3', { done: 3, of: 9 }]]);
    expect(after.waiters.map((x) => [x.holder, x.position])).toEqual([['w4', 1]]);
    expect(after.lost).toMatchObject([{ object: 'lost_claim', claimId: first.claimId, key: 'k1', holder: 'w1', holderSession: 'sess-w1', fence: first.fence, reason: 'expired' }]);
    expect(await w.ok((ops) => ops.activity.listSpaces({ credential: w.admin, limit: 1 }))).toMatchObject({ data: [{ held: 2, waiting: 1, lost: 1 }] });

    await w.ok((ops) => ops.claims.release({ credential: w.admin, spaceId: SPACE, key: 'k2', token: other.token as string }));
    const all = await events(w);
    expect(brief(all.data)).toEqual(['granted:space:w1:', 'granted:space:w3:', 'granted:space:wb:', 'expired:space:w1:expired', 'granted:space:w2:', 'released:space:w3:']);
    expect(all.hasMore).toBe(false);
    expect(brief((await events(w, undefined, 50, w.oneSpace)).data)).not.toContain('granted:space:wb:');
    expect((await events(w, undefined, 50, w.other)).data).toEqual([]);
    const firstTwo = await events(w, undefined, 2);
    expect(firstTwo).toMatchObject({ hasMore: true, nextCursor: all.data[1]?.id });
    expect((await events(w, firstTwo.nextCursor)).data.map((e) => e.id)).toEqual(all.data.slice(2).map((e) => e.id));
    expect(await events(w, all.nextCursor)).toMatchObject({ data: [], nextCursor: all.nextCursor, hasMore: false });
    expect(await w.run((ops) => ops.activity.events({ credential: w.admin, cursor: 'bogus' }))).toMatchObject({ code: 'invalid_request', param: 'cursor' });
  },

  'queue statistics, task and spool lease events, heartbeat rates': async (w) => {
    await w.ok((ops) => ops.spools.createSpool({ credential: w.admin, name: 'billing' }));
    await w.ok((ops) => ops.spools.putQueue({ credential: w.admin, spool: 'billing', queue: 'invoices', leaseTimeoutSeconds: 30 }));
    await w.ok((ops) => ops.spools.putQueue({ credential: w.admin, spool: 'billing', queue: 'refunds', leaseTimeoutSeconds: null }));
    const send = (body: unknown, delaySeconds?: number) =>
      w.ok((ops) => ops.spools.send({ credential: w.admin, spool: 'billing', queue: 'invoices', body, delaySeconds }));
    const receive = () => w.ok((ops) => ops.spools.receive({ credential: w.admin, spool: 'billing', queue: 'invoices', holderSession: 'sess-q' }));
    await send(1);
    await send(2);
    const doomed = await send(3);
    await send(4, 60);
    const got = (await receive()) as ReceivedMessage;
    const stats = await w.ok((ops) => ops.activity.queueStats({ credential: w.admin }));
    expect(stats.data.map((q) => [q.queue, q.depth, q.leased, q.delayed, q.deadLettered, q.leaseTimeoutSeconds])).toEqual([
      ['invoices', 2, 1, 1, 0, 30],
      ['refunds', 0, 0, 0, 0, null],
    ]);
    const samples = stats.data[0]?.samples ?? [];
    expect(samples).toHaveLength(60);
    expect(samples[59]).toMatchObject({ messages: 4, sent: 4, processed: 0 });
    const paged = await w.ok((ops) => ops.activity.queueStats({ credential: w.admin, limit: 1 }));
    expect((await w.ok((ops) => ops.activity.queueStats({ credential: w.admin, cursor: paged.nextCursor as string }))).data.map((q) => q.queue)).toEqual(['refunds']);
    expect((await w.ok((ops) => ops.activity.queueStats({ credential: w.other }))).data).toEqual([]);

    await w.advance(10_000);
    await w.ok((ops) => ops.spools.ack({ credential: w.admin, spool: 'billing', lease: got.lease }));
    await w.ok((ops) => ops.spools.discard({ credential: w.admin, spool: 'billing', handle: doomed.handle }));
    const second = (await receive()) as ReceivedMessage;
    await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: 30, holderSession: 'sess-q' }));
    await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: 30, holderSession: 'sess-q' }));
    await w.ok((ops) => ops.heartbeat({ credential: w.admin, ttl: 30, holderSession: 'sess-idle' }));
    const later = (await w.ok((ops) => ops.activity.queueStats({ credential: w.admin }))).data[0];
    expect(later).toMatchObject({ depth: 0, leased: 1, delayed: 1, deadLettered: 1 });
    expect(later?.samples.slice(-2)).toMatchObject([{ messages: 4, sent: 4, processed: 0 }, { messages: 2, sent: 0, processed: 1 }]);
    expect(await w.ok((ops) => ops.activity.sessions({ credential: w.admin }))).toMatchObject({
      data: [
        { object: 'session', holderSession: 'sess-idle', heartbeats: 1, leases: 0 },
        { object: 'session', holderSession: 'sess-q', heartbeats: 2, leases: 1 },
      ],
      nextCursor: null,
    });
    const { task, etag } = await w.ok((ops) => ops.tasks.create({ credential: w.admin, title: 'report' }));
    await w.ok((ops) => ops.tasks.claim({ credential: w.admin, taskId: task.id, ifMatch: etag, holderSession: 'sess-t' }));
    await w.advance(31_000);
    const list = await events(w);
    expect(brief(list.data)).toEqual([
      'granted:spool:invoices:',
      'released:spool:invoices:',
      'granted:spool:invoices:',
      'granted:task:1:',
      'expired:spool:invoices:expired',
    ]);
    expect(list.data[4]).toMatchObject({ claimId: second.message.claimId, spool: 'billing', queue: 'invoices', holderSession: 'sess-q' });
    expect((await events(w, undefined, 50, w.oneSpace)).data).toHaveLength(5);
    expect((await w.ok((ops) => ops.activity.sessions({ credential: w.admin, limit: 1 }))).nextCursor).not.toBeNull();
  },

  "a queue's leased messages and who holds them": async (w) => {
    await w.ok((ops) => ops.spools.createSpool({ credential: w.admin, name: 'billing' }));
    await w.ok((ops) => ops.spools.putQueue({ credential: w.admin, spool: 'billing', queue: 'invoices', leaseTimeoutSeconds: 30 }));
    const sent: Message[] = [];
    for (let i = 0; i < 3; i++) sent.push(await w.ok((ops) => ops.spools.send({ credential: w.admin, spool: 'billing', queue: 'invoices', body: i })));
    const receive = (holderSession?: string) =>
      w.ok((ops) => ops.spools.receive({ credential: w.admin, spool: 'billing', queue: 'invoices', holderSession })) as Promise<ReceivedMessage>;
    const a = await receive('sess-a');
    const b = await receive('sess-b');
    await receive();
    const held = (credential = w.admin) => w.ok((ops) => ops.activity.queueActivity({ credential, spool: 'billing', queue: 'invoices' }));
    const first = await held();
    expect(first).toMatchObject({ object: 'queue_activity', spool: 'billing', queue: 'invoices', nextCursor: null });
    expect(first.leased.map((m) => [m.messageId, m.holderSession, m.deliveryCount, m.expiresAt !== null && m.expiresAt - m.acquiredAt])).toEqual([
      [sent[0]?.id, 'sess-a', 1, 30_000],
      [sent[1]?.id, 'sess-b', 1, 30_000],
      [sent[2]?.id, null, 1, 30_000],
    ]);
    expect(first.leased[0]).toMatchObject({ claimId: a.message.claimId, fence: a.message.fence });
    expect(await w.run((ops) => ops.activity.queueActivity({ credential: w.other, spool: 'billing', queue: 'invoices' }))).toMatchObject({ code: 'spool_not_found' });
    expect(await w.run((ops) => ops.activity.queueActivity({ credential: w.admin, spool: 'billing', queue: 'nope' }))).toMatchObject({ code: 'queue_not_found' });
    expect(await w.run((ops) => ops.activity.queueActivity({ credential: w.admin, spool: 'billing', queue: 'invoices', cursor: 'bogus' }))).toMatchObject({ param: 'cursor' });

    await w.advance(10_000);
    const renewed = await w.ok((ops) => ops.spools.renew({ credential: w.admin, spool: 'billing', lease: a.lease }));
    await w.ok((ops) => ops.spools.nack({ credential: w.admin, spool: 'billing', lease: b.lease, delaySeconds: 60 }));
    await w.ok((ops) => ops.spools.discard({ credential: w.admin, spool: 'billing', handle: sent[2]?.handle as string }));
    expect((await held()).leased.map((m) => [m.messageId, m.expiresAt])).toEqual([[sent[0]?.id, renewed.expiresAt]]);
    await w.advance(30_001);
    expect((await held()).leased).toEqual([]);
  },
});
