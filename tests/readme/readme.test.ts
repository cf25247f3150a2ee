import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLeaseholdServer, listen } from '@leasehold/server';
import { describe, expect, it } from 'vitest';
import { rebuildReports } from './report-worker.js';

const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const worker = readFileSync(fileURLToPath(new URL('./report-worker.ts', import.meta.url)), 'utf8');

describe('the README', () => {
  it('shows the worker that this test runs, word for word', () => {
    const block = /<!-- worker-example -->\s*```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(worker);
    expect(worker.trimEnd().split('\n').length).toBeLessThanOrEqual(25);
  });

  it('whose worker runs against the reference server and leaves every key free', async () => {
    const server = createLeaseholdServer();
    const listener = await listen(server, { port: 0 });
    try {
      const store = await rebuildReports(listener.url, ['2026-10', '2026-11']);
      expect([...store.keys()]).toEqual(['reports/2026-10', 'reports/2026-11']);
      expect(server.control.stats().held).toBe(0);
    } finally {
      await listener.close();
    }
  });

  it('names the two set-up commands that exist', () => {
    expect(readme).toContain('bash scripts/demo.sh');
    expect(readme).toContain('bash scripts/test.sh');
    expect(readFileSync(fileURLToPath(new URL('../../.ci/run', import.meta.url)), 'utf8')).toContain('scripts/test.sh');
  });
});
