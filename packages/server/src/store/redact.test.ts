import { describe, expect, it } from 'vitest';
import { maskKey, redactText, redactUrl } from './redact.js';

describe('redactUrl', () => {
  it.each([
    ['postgres://lh:s3cret@db:5432/lh', 'postgres://lh:***@db:5432/lh'],
    ['postgresql://lh:s3cret@db/lh', 'postgresql://lh:***@db/lh'],
    ['postgres://lh@db/lh?password=s3cret', 'postgres://lh@db/lh?password=***'],
    ['postgres://lh@db/lh?sslmode=require&PASSWORD=s3cret&application_name=x', 'postgres://lh@db/lh?sslmode=require&PASSWORD=***&application_name=x'],
    ['postgres://lh@db/lh?pass%77ord=s3cret', 'postgres://lh@db/lh?pass%77ord=***'],
    ['postgres://lh:s3%40cr%3Aet@db/lh', 'postgres://lh:***@db/lh'],
    ['postgres://lh@db/lh?sslpassword=s3cret', 'postgres://lh@db/lh?sslpassword=***'],
    ['postgres//lh:s3cret@db/lh', 'postgres//lh:***@db/lh'],
    ['postgres:lh:s3cret@db/lh', 'postgres:***@db/lh'],
    ['postgres://[oops:s3cret@db', 'postgres://%5Boops:***@db'],
    ['lh:s3cret@db:5432', 'lh:***@db:5432'],
    ['postgres://lh@db/lh', 'postgres://lh@db/lh'],
  ])('%s → %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
    expect(redactUrl(url)).not.toContain('s3');
  });
});

describe('redactText', () => {
  it('hides every URL secret and libpq password= keyword in free text', () => {
    const text = 'could not reach postgres://a:s3cret@h/db?password=s3cret2 (host=h password=s3cret3 user=a) "https://x:s3cret4@y/"';
    const out = redactText(text);
    expect(out).toBe('could not reach postgres://a:***@h/db?password=*** (host=h password=*** user=a) "https://x:***@y/"');
  });
});

describe('maskKey', () => {
  it('shows a kind prefix, the last 4 of a long key and a fingerprint, never the key', () => {
    const key = 'lh_live_3f9a1c7e5b2d8f0a6c4e2b9d';
    expect(maskKey(key)).toMatch(/^lh_live_…2b9d \(sha256 [0-9a-f]{12}\)$/);
    expect(maskKey(key)).not.toContain('3f9a1c7e');
    expect(maskKey('lh_file_limited')).toMatch(/^…?(lh_file_)?… \(sha256 [0-9a-f]{12}\)$/);
    expect(maskKey('lh_file_limited')).not.toContain('limited');
    expect(maskKey('short')).toMatch(/^… \(sha256 /);
    expect(maskKey(key)).not.toBe(maskKey(`${key}x`));
  });
});
