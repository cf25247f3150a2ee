import { describe, expect, it } from 'vitest';
import { openAnswer, sealAnswer } from './answer-seal.js';

const small = { status: 200, body: '{"claimId":"clm_1","token":"tok_secret"}' };
const large = {
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify({ object: 'list', results: Array.from({ length: 2000 }, (_, i) => ({ claimId: `clm_${i}`, status: 'held', expiresAt: 1_700_000_000_000 + i })) }),
};

describe('sealAnswer / openAnswer', () => {
  it('opens what it sealed, small answers as version 1', () => {
    const sealed = sealAnswer('cred_a', 'key-1', small);
    expect(sealed[0]).toBe(1);
    expect(openAnswer('cred_a', 'key-1', sealed)).toEqual(small);
  });

  it('compresses a large answer before sealing it (version 2), and opens it back', () => {
    const sealed = sealAnswer('cred_a', 'key-1', large);
    expect(sealed[0]).toBe(2);
    expect(sealed.length).toBeLessThan(JSON.stringify(large).length / 4);
    const opened = openAnswer<typeof large>('cred_a', 'key-1', sealed);
    expect(opened).toEqual(large);
    expect(Object.keys(opened)).toEqual(Object.keys(large));
  });

  it('keeps a large body exactly, newlines, quotes and U+0000 included', () => {
    const answer = { status: 200, headers: {}, body: `line one\n"two"\u0000\n\n${'x\\y '.repeat(2000)}` };
    const sealed = sealAnswer('cred_a', 'key-1', answer);
    expect(sealed[0]).toBe(2);
    expect(openAnswer('cred_a', 'key-1', sealed)).toEqual(answer);
  });

  it('seals an answer without a string body as version 1 whatever its size', () => {
    const answer = { status: 200, headers: { link: 'x'.repeat(10_000) }, body: undefined };
    const sealed = sealAnswer('cred_a', 'key-1', answer);
    expect(sealed[0]).toBe(1);
    expect(openAnswer('cred_a', 'key-1', sealed)).toEqual({ status: 200, headers: answer.headers });
  });

  it('refuses another key or credential, and a tampered answer', () => {
    for (const answer of [small, large]) {
      const sealed = sealAnswer('cred_a', 'key-1', answer);
      expect(() => openAnswer('cred_a', 'key-2', sealed)).toThrow();
      expect(() => openAnswer('cred_b', 'key-1', sealed)).toThrow();
      const tampered = Buffer.from(sealed);
      tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 1;
      expect(() => openAnswer('cred_a', 'key-1', tampered)).toThrow();
    }
  });

  it('refuses an unknown version', () => {
    const sealed = Buffer.from(sealAnswer('cred_a', 'key-1', small));
    sealed[0] = 3;
    expect(() => openAnswer('cred_a', 'key-1', sealed)).toThrow('unknown sealed answer version');
  });
});
