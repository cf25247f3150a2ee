import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStoreTarget } from './open-store.js';

describe('parseStoreTarget', () => {
  it('takes memory, a postgres URL, and a directory written as an explicit path', () => {
    expect(parseStoreTarget('memory')).toEqual({ kind: 'memory' });
    expect(parseStoreTarget('postgresql://lh@db/lh')).toEqual({ kind: 'postgres', url: 'postgresql://lh@db/lh' });
    for (const path of ['/var/lib/leasehold', './data', '../data', '.', '..']) expect(parseStoreTarget(path)).toEqual({ kind: 'pglite', dataDir: resolve(path) });
    expect(parseStoreTarget('~/leasehold')).toEqual({ kind: 'pglite', dataDir: join(homedir(), 'leasehold') });
  });

  it.each(['postgres//lh:s3cret@db/lh', 'postgres:lh:s3cret@db/lh', 'leasehold-data', 'data/leasehold', 'mysql://lh:s3cret@db', 'postgres://[oops'])(
    'refuses %s, with no password in the message',
    (value) => {
      expect(() => parseStoreTarget(value)).toThrow(/use memory, a postgres:\/\/ URL or a directory path|not a valid PostgreSQL URL/);
      try {
        parseStoreTarget(value);
      } catch (error) {
        expect((error as Error).message).not.toContain('s3cret');
      }
    },
  );
});
