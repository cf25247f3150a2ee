/**
 * The activity views over real HTTP: lease events as server-sent events, resumed by Last-Event-ID;
 * who holds a queue's leased messages.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { READER, SPACE, expectStatus, startServer, stopServers } from '../support/leasehold-harness.js';

afterEach(stopServers);

/** The `id`/`data` blocks of an event-stream body. */
function parseStream(text: string): { id: string; event: string; data: { type: string; holder: string | null } }[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('id: '))
    .map((block) => {
      const fields = Object.fromEntries(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
      return { id: fields.id as string, event: fields.event as string, data: JSON.parse(fields.data as string) };
    });
}

describe('lease events as server-sent events', () => {
  it('answers the events after Last-Event-ID as text/event-stream with a retry, then only what is new', async () => {
    const h = await startServer();
    const first = await h.acquire('reports/1', { leaseSeconds: 5, holder: 'w1' });
    await h.acquire('reports/1', { wait: true, holder: 'w2' });
    const stream = await h.call('streamLeaseEvents', { key: READER });
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('cache-control')).toBe('no-store');
    expect(stream.body).toMatch(/retry: 1000\n\n$/);
    const events = parseStream(stream.body as string);
    expect(events.map((e) => [e.event, e.data.type, e.data.holder])).toEqual([['lease_event', 'granted', 'w1']]);

    await h.control.advanceClock(6_000);
    const next = await h.call('streamLeaseEvents', { key: READER, headers: { 'Last-Event-ID': events[0]?.id as string } });
    expect(parseStream(next.body as string).map((e) => [e.data.type, e.data.holder])).toEqual([['expired', 'w1'], ['granted', 'w2']]);
    const last = parseStream(next.body as string).at(-1)?.id as string;
    const idle = await h.call('streamLeaseEvents', { key: READER, headers: { 'Last-Event-ID': last } });
    expect(idle.body).toBe(': no new lease events\n\nretry: 1000\n\n');

    const activity = await h.call('getSpaceActivity', { path: { spaceId: SPACE } });
    expectStatus(activity, 200);
    expect(activity.body.lost).toMatchObject([{ claimId: first.body.claimId, holder: 'w1', reason: 'expired' }]);
  });
});

describe("a queue's activity", () => {
  it('lists the leased messages in send order with the session holding each, paged, and drops what was settled or ran out', async () => {
    const h = await startServer();
    await h.createQueue('billing', 'invoices', 30);
    const sent = [];
    for (let i = 0; i < 4; i++) sent.push(await h.sendMessage('billing', 'invoices', { invoice: i }));
    const now = await h.control.now();
    const a = await h.receive('billing', 'invoices', { 'Leasehold-Session': 'sess-a' });
    const b = await h.receive('billing', 'invoices', { 'Leasehold-Session': 'sess-b' });
    const c = await h.receive('billing', 'invoices');
    const path = { spool: 'billing', queue: 'invoices' };

    const first = await h.call('getQueueActivity', { key: READER, path, query: { limit: 2 } });
    expectStatus(first, 200);
    expect(first.body).toMatchObject({ object: 'queue_activity', spool: 'billing', queue: 'invoices' });
    expect(first.body.leased).toEqual([
      { object: 'leased_message', messageId: sent[0]?.id, claimId: a.answer.body.claimId, holderSession: 'sess-a', fence: a.answer.body.fence, deliveryCount: 1, acquiredAt: now, expiresAt: now + 30_000 },
      { object: 'leased_message', messageId: sent[1]?.id, claimId: b.answer.body.claimId, holderSession: 'sess-b', fence: b.answer.body.fence, deliveryCount: 1, acquiredAt: now, expiresAt: now + 30_000 },
    ]);
    const text = JSON.stringify(first.body);
    expect(text).not.toContain(a.lease);
    expect(text).not.toContain(sent[0]?.handle);
    const second = await h.call('getQueueActivity', { key: READER, path, query: { limit: 2, cursor: first.body.nextCursor } });
    expect(second.body.leased.map((m: { messageId: string; holderSession: string | null }) => [m.messageId, m.holderSession])).toEqual([[sent[2]?.id, null]]);
    expect(second.body.nextCursor).toBeNull();
    expect(c.answer.body.id).toBe(sent[2]?.id);

    expectStatus(await h.call('ackMessage', { path: { spool: 'billing' }, headers: { 'Spooler-Lease': a.lease } }), 204);
    const afterAck = await h.call('getQueueActivity', { path });
    expect(afterAck.body.leased.map((m: { messageId: string }) => m.messageId)).toEqual([sent[1]?.id, sent[2]?.id]);

    await h.control.advanceClock(30_001);
    expect((await h.call('getQueueActivity', { path })).body.leased).toEqual([]);
    const again = await h.receive('billing', 'invoices', { 'Leasehold-Session': 'sess-c' });
    const redelivered = await h.call('getQueueActivity', { path });
    expect(redelivered.body.leased).toMatchObject([{ messageId: sent[1]?.id, claimId: again.answer.body.claimId, holderSession: 'sess-c', deliveryCount: 2 }]);
    const stats = await h.call('listQueueStats', {});
    expect(stats.body.data).toMatchObject([{ spool: 'billing', queue: 'invoices', leased: 1 }]);
  });
});
