import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const LOAD_PG = fileURLToPath(new URL('./load-pg.ts', import.meta.url));

/** Loads pg through `loadPg` in a fresh node process (pg is cached in this one) and reports what it saw. */
function loadInFreshProcess(before = ''): { touchedResponse: boolean; navigatorAfter: string; pool: string } {
  const script = `
    let touchedResponse = false;
    const response = globalThis.Response;
    Object.defineProperty(globalThis, 'Response', { configurable: true, get() { touchedResponse = true; return response; } });
    ${before}
    const { loadPg } = await import(${JSON.stringify(LOAD_PG)});
    const pg = loadPg();
    console.log(JSON.stringify({ touchedResponse, navigatorAfter: typeof globalThis.navigator === 'object' ? JSON.stringify(globalThis.navigator) : typeof globalThis.navigator, pool: typeof pg.Pool }));`;
  return JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }));
}

describe('loadPg', () => {
  it('loads pg without its Cloudflare probe building a Response, and leaves no navigator behind', () => {
    const seen = loadInFreshProcess();
    expect(seen.pool).toBe('function');
    expect(seen.touchedResponse, 'pg reached for Response while loading').toBe(false);
    // Node 20 has no navigator: the one lent while pg loaded is gone. A Node with its own keeps it.
    if (Number(process.versions.node.split('.')[0]) < 21) expect(seen.navigatorAfter).toBe('undefined');
  });

  it('leaves a navigator that was there alone', () => {
    const seen = loadInFreshProcess(`Object.defineProperty(globalThis, 'navigator', { value: { userAgent: 'mine' }, configurable: true, writable: true });`);
    expect(seen.pool).toBe('function');
    expect(seen.navigatorAfter).toBe(JSON.stringify({ userAgent: 'mine' }));
  });
});
