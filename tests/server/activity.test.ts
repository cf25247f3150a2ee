/** The activity views over real HTTP: lease events as server-sent events, resumed by Last-Event-ID. */
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
