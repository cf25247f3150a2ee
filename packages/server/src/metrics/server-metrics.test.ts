import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServerMetrics } from './server-metrics.js';

const CPU = 'leasehold_process_cpu_user_seconds_total';

afterEach(() => {
  vi.useRealTimers();
});

describe('ServerMetrics: prom-client default process metrics, off the start path', () => {
  it('are not registered at construction, and the first scrape waits for them', async () => {
    const metrics = new ServerMetrics();
    expect(metrics.registry.getSingleMetric(CPU)).toBeUndefined();
    const text = await metrics.text();
    expect(text).toContain(CPU);
    expect(text).toContain('leasehold_nodejs_eventloop_lag_seconds');
    // Registered once: a second scrape neither fails on duplicate names nor loses them.
    expect(await metrics.text()).toContain(CPU);
  });

  it('are registered a second after construction when nothing scraped before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const metrics = new ServerMetrics();
    await vi.advanceTimersByTimeAsync(999);
    expect(metrics.registry.getSingleMetric(CPU)).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await vi.waitFor(() => expect(metrics.registry.getSingleMetric(CPU)).toBeDefined());
  });

  it('are left out with processMetrics: false', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const metrics = new ServerMetrics({ processMetrics: false });
    await vi.advanceTimersByTimeAsync(2000);
    expect(await metrics.text()).not.toContain(CPU);
  });
});
