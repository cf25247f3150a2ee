import { describe, expect, it, vi } from 'vitest';
import { ClaimListPromise } from './claim-list.js';
import type { Claim, ClaimList } from '../resources/wire-types.js';

const claim = (key: string) => ({ key }) as Claim;
const pages: Record<string, ClaimList> = {
  start: { object: 'list', data: [claim('a'), claim('b')], nextCursor: 'c1' },
  c1: { object: 'list', data: [claim('c'), claim('d')], nextCursor: 'c2' },
  c2: { object: 'list', data: [claim('e')], nextCursor: null },
};

function fetcher() {
  return vi.fn(async (cursor: string | undefined) => pages[cursor ?? 'start'] as ClaimList);
}

describe('ClaimListPromise', () => {
  it('fetches nothing until awaited or iterated', () => {
    const fetch = fetcher();
    new ClaimListPromise(fetch, undefined);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('await gives the first page; the page walks on', async () => {
    const fetch = fetcher();
    const first = await new ClaimListPromise(fetch, undefined);
    expect(first.data.map((c) => c.key)).toEqual(['a', 'b']);
    expect(fetch).toHaveBeenCalledTimes(1);
    const second = await first.getNextPage();
    expect(second.nextCursor).toBe('c2');
    const last = await second.getNextPage();
    expect(last.hasNextPage()).toBe(false);
    await expect(last.getNextPage()).rejects.toMatchObject({ name: 'LeaseholdError', message: expect.stringContaining('last page') });
  });

  it('for await yields every claim of every page, fetching each page once', async () => {
    const fetch = fetcher();
    const keys: string[] = [];
    for await (const c of new ClaimListPromise(fetch, undefined)) keys.push(c.key);
    expect(keys).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(fetch.mock.calls.map(([cursor]) => cursor)).toEqual([undefined, 'c1', 'c2']);
  });

  it('starts from a given cursor, and stops early without fetching further pages', async () => {
    const fetch = fetcher();
    for await (const c of new ClaimListPromise(fetch, 'c1')) {
      expect(c.key).toBe('c');
      break;
    }
    expect(fetch.mock.calls.map(([cursor]) => cursor)).toEqual(['c1']);
  });
});
