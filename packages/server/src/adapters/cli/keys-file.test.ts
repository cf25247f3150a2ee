import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS } from '../../engine/index.js';
import { loadKeysFile } from './keys-file.js';

const dir = mkdtempSync(join(tmpdir(), 'leasehold-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** The message loadKeysFile refuses `content` with. */
function refusal(content: unknown): string {
  const file = join(dir, `keys-${n++}.json`);
  writeFileSync(file, JSON.stringify(content));
  try {
    loadKeysFile(file);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the keys file was accepted');
}

describe('a bad --keys file', () => {
  it('names the field path, the value and the allowed permission names', () => {
    const message = refusal([{ apiKey: 'lh_a', accountId: 'acct', permissions: ['tasks:read', 'tasks.writ'] }]);
    expect(message).toContain('[0].permissions[1] is "tasks.writ", not one of: ');
    for (const permission of ALL_PERMISSIONS) expect(message).toContain(JSON.stringify(permission));
    expect(message).not.toContain('[0].permissions[0]');
  });

  it('names unknown fields with the known ones, and the bad value of a known one', () => {
    const message = refusal({ keys: [{ apiKey: 'has space', accountId: 'acct', blockd: true }] });
    // A key is a secret even when malformed: its length is said, never its text.
    expect(message).toContain('keys[0].apiKey is a 9-character string (not shown): must be 1–200 printable ASCII characters without spaces');
    expect(message).not.toContain('has space');
    expect(message).toContain('keys[0] has unknown field "blockd" (known: apiKey, credentialId, accountId, permissions, spaces, blocked,');
  });

  it('says what is missing, and refuses an empty list', () => {
    expect(refusal([{ apiKey: 'k' }])).toContain('[0].accountId is missing (expected string)');
    expect(refusal([])).toContain('(the file) is []: must list at least one key');
    expect(refusal({ key: [] })).toContain('(the file) has unknown field "key" (known: keys)');
  });

  it('never quotes the file\'s text around a JSON syntax error (it may be a key)', () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '[{"apiKey": lh_live_0123456789abcdef, "accountId": "acct"}]');
    expect(() => loadKeysFile(file)).toThrow(/broken\.json: Unexpected token/);
    expect(() => loadKeysFile(file)).not.toThrow(/lh_live/);
  });

  it('reads a valid file', () => {
    const file = join(dir, 'good.json');
    writeFileSync(file, JSON.stringify([{ apiKey: 'lh_a', accountId: 'acct', permissions: ['tasks:read'] }]));
    expect(loadKeysFile(file)).toEqual([{ apiKey: 'lh_a', accountId: 'acct', permissions: ['tasks:read'] }]);
  });
});
