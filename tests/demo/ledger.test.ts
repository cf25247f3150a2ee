import { describe, expect, it } from 'vitest';
import { FencedLedger } from '../../demo/src/ledger.js';

describe("the demo's fenced ledger", () => {
  it('counts an item committed under two fences as done twice (it does not hide duplicates)', () => {
    const ledger = new FencedLedger();
    ledger.expect('task', ['1', '2']);
    expect(ledger.begin('task', '1', 5)).toEqual({ done: false, stale: false });
    expect(ledger.commit('task', '1', 5, 'worker-1')).toBe('accepted');
    expect(ledger.commit('task', '1', 9, 'worker-2')).toBe('accepted');
    const tally = ledger.tally('task');
    expect(tally.duplicates).toEqual([{ id: '1', commits: [{ worker: 'worker-1', fence: 5 }, { worker: 'worker-2', fence: 9 }] }]);
    expect(tally.missing).toEqual(['2']);
    expect(tally.once).toBe(0);
  });

  it('refuses a write whose fence is older than one the store has seen', () => {
    const ledger = new FencedLedger();
    ledger.begin('key', 'reports/001', 9);
    expect(ledger.commit('key', 'reports/001', 5, 'stalled-worker')).toBe('stale');
    expect(ledger.staleRejected.key).toBe(1);
    expect(ledger.isDone('key', 'reports/001')).toBe(false);
  });

  it('tells a successor that a predecessor already finished', () => {
    const ledger = new FencedLedger();
    ledger.begin('message', 'msg_1', 3);
    ledger.commit('message', 'msg_1', 3, 'worker-1');
    expect(ledger.begin('message', 'msg_1', 4)).toEqual({ done: true, stale: false });
    expect(ledger.alreadyDone.message).toBe(1);
    expect(ledger.tally('message').once).toBe(1);
  });
});
