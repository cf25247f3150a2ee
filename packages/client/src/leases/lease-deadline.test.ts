import { describe, expect, it } from 'vitest';
import { defaultDriftMarginMs, LeaseDeadline, type LeaseTiming } from './lease-deadline.js';
import { renewalDurationMs, spaceClaimDurationMs } from './lease-kind.js';

const timing: LeaseTiming = { now: () => 0, driftMarginMs: defaultDriftMarginMs, atRiskLeadMs: (d) => d / 3 };

describe('defaultDriftMarginMs', () => {
  it.each([
    { given: 5_000, want: 1_000 },
    { given: 30_000, want: 1_500 },
    { given: 900_000, want: 45_000 },
    { given: 1_000, want: 500 },
  ])('$given ms → $want ms', ({ given, want }) => {
    expect(defaultDriftMarginMs(given)).toBe(want);
  });
});

describe('renewalDurationMs', () => {
  it.each([
    { kind: 'space', ttl: 30, spool: null, want: 30_000 },
    { kind: 'space', ttl: 1, spool: null, want: 5_000 },
    { kind: 'space', ttl: 3600, spool: null, want: 600_000 },
    { kind: 'task', ttl: 30, spool: null, want: 900_000 },
    { kind: 'spool', ttl: 30, spool: 60_000, want: 60_000 },
    { kind: 'spool', ttl: 30, spool: null, want: null },
  ] as const)('$kind with ttl $ttl → $want', ({ kind, ttl, spool, want }) => {
    expect(renewalDurationMs(kind, ttl, spool)).toBe(want);
  });

  it('clamps space ttl to 5–600 s', () => {
    expect(spaceClaimDurationMs(0)).toBe(5_000);
    expect(spaceClaimDurationMs(2.5)).toBe(5_000);
    expect(spaceClaimDurationMs(601)).toBe(600_000);
  });
});

describe('LeaseDeadline', () => {
  it('counts from the send time, minus the margin', () => {
    const d = new LeaseDeadline();
    d.record(1_000, 30_000, timing);
    expect(d.deadline).toBe(1_000 + 30_000 - 1_500);
    expect(d.atRiskAt).toBe(d.deadline - 10_000);
    expect(d.renewalDueAt()).toBe(11_000);
  });

  it('has no deadline for a lease that never expires', () => {
    const d = new LeaseDeadline();
    d.record(0, null, timing);
    expect(d.deadline).toBe(Infinity);
    expect(d.renewalDueAt()).toBe(Infinity);
  });

  it('lets an out-of-order older answer only shorten the term', () => {
    const d = new LeaseDeadline();
    expect(d.record(10_000, 30_000, timing)).toBe(true);
    expect(d.record(5_000, 900_000, timing)).toBe(false);
    expect(d.deadline).toBe(10_000 + 30_000 - 1_500);
    expect(d.record(6_000, 10_000, timing)).toBe(false);
    expect(d.deadline).toBe(10_000 + 10_000 - 1_000);
  });

  it('re-arms the at-risk report only when the deadline moves later', () => {
    const d = new LeaseDeadline();
    d.record(0, 30_000, timing);
    d.atRiskReported = true;
    d.record(0, 30_000, timing);
    expect(d.atRiskReported).toBe(true);
    d.record(1, 30_000, timing);
    expect(d.atRiskReported).toBe(false);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, -1_000])('never keeps a non-finite or negative duration (%s): it counts as nothing granted', (duration) => {
    const d = new LeaseDeadline();
    d.record(10_000, duration, timing);
    expect(Number.isFinite(d.deadline)).toBe(true);
    expect(d.deadline).toBeLessThanOrEqual(10_000);
  });
});
