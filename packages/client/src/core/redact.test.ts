import { describe, expect, it } from 'vitest';
import { redactingLogger } from './logger.js';
import { redact, Redactor, REDACTED } from './redact.js';

const TASK_TOKEN = '22222222-2222-4222-8222-222222222222';

describe('redact (patterns, no registered secrets)', () => {
  it.each([
    ['Bearer credential', 'Authorization: Bearer lh_live_abc.def-123', 'Authorization: Bearer [REDACTED]'],
    ['bearer, lowercase', 'sent bearer abc123XYZ to the proxy', 'sent bearer [REDACTED] to the proxy'],
    ['claim token', 'renew of lht_9f8e7d6c5b4a failed', 'renew of lht_[REDACTED] failed'],
    ['spool lease by prefix', 'lease sl_Zq8Vn4Tx2Kp7Rm3Wb9Yc1Hd is stale', 'lease sl_[REDACTED] is stale'],
    ['spool lease header text', 'Spooler-Lease: AbCdEfGhIjKlMnOpQr', 'Spooler-Lease: [REDACTED]'],
    ['x-task-claim header text', `x-task-claim=${TASK_TOKEN}`, 'x-task-claim=[REDACTED]'],
    ['API key by prefix', 'key lh_test_admin lacks permission', 'key lh_test_[REDACTED] lacks permission'],
    ['task token after "token"', `token ${TASK_TOKEN} is expired`, 'token [REDACTED] is expired'],
    ['task token after "Token:"', `Token: "${TASK_TOKEN}"`, 'Token: "[REDACTED]"'],
    ['task token after "token is"', `the token is ${TASK_TOKEN}`, 'the token is [REDACTED]'],
    ['token= in free text', 'token=abc.def&x=1', 'token=[REDACTED]&x=1'],
    ['JSON token member', `{"token":"${TASK_TOKEN}","fence":3}`, `{"token":"${REDACTED}","fence":3}`],
    ['JSON camelCase token member', '{"leaseToken":"whatever-secret"}', `{"leaseToken":"${REDACTED}"}`],
    ['JSON apiKey member', '{"apiKey":"k"}', `{"apiKey":"${REDACTED}"}`],
  ])('%s', (_, given, want) => {
    expect(redact(given)).toBe(want);
  });

  it.each([
    ['a stale_token code', '410 stale_token: The lease no longer settles anything.'],
    ['a UUID that is a space id', 'space 6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a not found'],
    ['request ids', 'request req_01JDQ7S9X4M2Q8W3E5R6T7Y8U9'],
    ['claim ids', 'claim clm_7Zp2Qk9rT4xW1mN8 lost'],
    ['"invalid_token" code', '{"code":"invalid_token","message":"bad"}'],
  ])('leaves %s alone', (_, text) => {
    expect(redact(text)).toBe(text);
  });

  it('never throws on odd input', () => {
    expect(redact(undefined as unknown as string)).toBe('undefined');
    expect(redact('')).toBe('');
  });
});

describe('Redactor', () => {
  it('masks registered secrets of any shape, wherever they appear', () => {
    const redactor = new Redactor({ secrets: ['my-api-key-123'] });
    redactor.add('opaqueLeaseValue_0123456789');
    expect(redactor.redact('k=my-api-key-123 l=opaqueLeaseValue_0123456789 again my-api-key-123')).toBe(
      `k=${REDACTED} l=${REDACTED} again ${REDACTED}`,
    );
  });

  it('ignores empty and very short values', () => {
    const redactor = new Redactor({ secrets: ['', 'a', undefined, null, '12345'] });
    expect(redactor.redact('a 12345 b')).toBe('a 12345 b');
  });

  it('forgets secrets and bounds how many it remembers', () => {
    const redactor = new Redactor({ maxSecrets: 2 });
    redactor.add('secret-one');
    redactor.add('secret-two');
    redactor.add('secret-three');
    expect(redactor.has('secret-one')).toBe(false);
    expect(redactor.redact('secret-two secret-three')).toBe(`${REDACTED} ${REDACTED}`);
    redactor.forget('secret-two');
    expect(redactor.redact('secret-two')).toBe('secret-two');
  });

  it('masks secret headers by name and redacts the others', () => {
    const redactor = new Redactor({ secrets: ['my-api-key-123'] });
    expect(
      redactor.redactHeaders({ Authorization: 'Bearer x', 'spooler-lease': 'abc', 'x-task-claim': TASK_TOKEN, via: 'my-api-key-123', etag: '"v1"' }),
    ).toEqual({ Authorization: REDACTED, 'spooler-lease': REDACTED, 'x-task-claim': REDACTED, via: REDACTED, etag: '"v1"' });
  });

  it('redacts log fields deeply, including secret-named keys and errors', () => {
    const redactor = new Redactor({ secrets: ['my-api-key-123'] });
    const lines: unknown[][] = [];
    const log = redactingLogger({ warn: (...args: unknown[]) => lines.push(args) }, redactor);
    log.warn('failed with my-api-key-123', {
      nested: { list: ['Bearer abc123', { token: 'anything' }] },
      error: new Error('my-api-key-123 rejected'),
      claimToken: 'whatever',
      'Spooler-Lease': 'whatever',
    });
    log.info('dropped: the logger has no info');
    expect(lines).toEqual([
      [
        `failed with ${REDACTED}`,
        {
          nested: { list: ['Bearer [REDACTED]', { token: REDACTED }] },
          error: `Error: ${REDACTED} rejected`,
          claimToken: REDACTED,
          'Spooler-Lease': REDACTED,
        },
      ],
    ]);
  });

  it('a throwing logger does not throw', () => {
    const log = redactingLogger({ error: () => { throw new Error('disk full'); } }, new Redactor());
    expect(() => log.error('x')).not.toThrow();
  });
});
