/**
 * The client side of bad input: text the client cannot send losslessly (lone surrogates, the
 * dot segments `.` and `..`, line breaks in headers) is refused with `InvalidArgumentError`
 * before anything is sent, wherever it appears — a claim key, a space or spool name, a list
 * prefix, a message handle, a header; and every key it does accept round-trips exactly: what
 * was acquired is the key that reads, renews and releases. fast-check, seeded; the reference
 * server in process.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, Leasehold, type LeaseholdOptions } from '../../packages/client/src/index.js';
import { createLeaseholdServer } from '../../packages/server/src/index.js';
import { SuiteReport } from './support/report.js';
import { size } from './support/sizes.js';

const SEED = 1_212;
const RUNS = size(150, 2_000);
const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const report = new SuiteReport('reliability: the client against input it cannot send');
afterAll(() => report.print());

function world() {
  const server = createLeaseholdServer({ clock: 'manual' });
  let sent = 0;
  const fetch: LeaseholdOptions['fetch'] = async (input, init) => {
    sent++;
    return server.handle(new Request(input, init));
  };
  const lh = new Leasehold({ baseUrl: 'http://leasehold.test', apiKey: 'lh_test_admin', fetch, maxRetries: 0 });
  return { server, lh, sent: () => sent };
}

const loneSurrogate = fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff');
/** A string with at least one lone surrogate somewhere in it. */
const withLoneSurrogate = fc
  .tuple(fc.string({ maxLength: 8 }), loneSurrogate, fc.string({ maxLength: 8 }))
  .map(([a, s, b]) => `${a}${s}${b}`)
  .filter((text) => /\p{Cs}/u.test(text));
/** Text that cannot be a path segment. */
const unaddressable = fc.oneof(withLoneSurrogate, fc.constantFrom('.', '..'));

/**
 * Every call that puts caller text in a URL path, with that text. (Text in a JSON body — a
 * spool's name at create, a holder — is sent losslessly, escapes included; the server judges it.)
 */
const CALLS: Array<[string, (lh: Leasehold, text: string) => Promise<unknown>]> = [
  ['claim(key).acquire()', (lh, key) => lh.space(SPACE).run(randomUUID(), { holder: 'w' }).claim(key).acquire()],
  ['claim(key).tryAcquire()', (lh, key) => lh.space(SPACE).run(randomUUID(), { holder: 'w' }).claim(key).tryAcquire()],
  ['claim(key).run(fn)', (lh, key) => lh.space(SPACE).run(randomUUID(), { holder: 'w' }).claim(key).run(() => 1)],
  ['space.claims.get(key)', (lh, key) => lh.space(SPACE).claims.get(key)],
  ['space(id).claims.get()', (lh, id) => lh.space(id).claims.get('k')],
  ['space(id).cancelRun(run)', (lh, id) => lh.space(SPACE).cancelRun(id)],
  ['spool(name).queue(q).put()', (lh, name) => lh.spool('s').queue(name).put({ leaseTimeoutSeconds: 30 })],
  ['queue.send()', (lh, name) => lh.spool(name).queue('q').send({ n: 1 })],
  ['queue.receive()', (lh, name) => lh.spool('s').queue(name).receive()],
  ['spool.discard(handle)', (lh, handle) => lh.spool('s').discard(handle)],
];

describe('text the client cannot send losslessly is refused before anything is sent', () => {
  for (const [name, call] of CALLS) {
    it(`${name}: a lone surrogate or a dot segment is an InvalidArgumentError, and no request leaves`, async () => {
      const { lh, sent } = world();
      await fc.assert(
        fc.asyncProperty(unaddressable, async (text) => {
          const before = sent();
          // Some refusals come at once (`lh.space(id)` checks its UUID when called), others as a rejection.
          const error = await Promise.resolve()
            .then(() => call(lh, text))
            .then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(InvalidArgumentError);
          expect(sent()).toBe(before);
          report.add('unsendable inputs refused');
        }),
        { seed: SEED, numRuns: Math.ceil(RUNS / 5) },
      );
      await lh.close();
    });
  }

  it('a list prefix with a lone surrogate (URLSearchParams would turn it into U+FFFD) is refused', async () => {
    const { lh, sent } = world();
    await fc.assert(
      fc.asyncProperty(withLoneSurrogate, async (prefix) => {
        const before = sent();
        await expect(lh.space(SPACE).claims.list({ prefix })).rejects.toBeInstanceOf(InvalidArgumentError);
        expect(sent()).toBe(before);
      }),
      { seed: SEED, numRuns: Math.ceil(RUNS / 5) },
    );
    await lh.close();
  });

  it('header values with line breaks or non-ASCII (an ETag, a claim token) are refused, secrets not shown', async () => {
    const { lh, sent } = world();
    const { task, etag } = await lh.tasks.create({ title: 't' });
    const before = sent();
    for (const bad of [`${etag}\r\nX-Evil: 1`, 'W/"é"', '']) {
      await expect(lh.tasks.update(task.id, { title: 'x' }, { etag: bad })).rejects.toBeInstanceOf(InvalidArgumentError);
    }
    const error = await lh.tasks.update(task.id, { title: 'x' }, { etag, claimToken: 'secret-token\n' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).not.toContain('secret-token');
    expect(sent()).toBe(before);
    await lh.close();
  });
});

describe('every key the client accepts round-trips exactly', () => {
  it('acquire, read, renew and release name the same key (slashes, percent signs, dots, emoji, any well-formed text)', async () => {
    const { lh } = world();
    const key = fc
      .string({ unit: fc.oneof(fc.constantFrom('/', '%', '.', '?', '#', ' ', '+', '\\', '~', '%2e', '%2F'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), minLength: 1, maxLength: 24 })
      .filter((text) => text !== '.' && text !== '..' && !/\p{Cs}/u.test(text) && text.length <= 512);
    await fc.assert(
      fc.asyncProperty(key, async (k) => {
        const space = lh.space(SPACE);
        const lease = await space.run(randomUUID(), { holder: 'w' }).claim(k).tryAcquire();
        expect(lease).not.toBeNull();
        expect((await space.claims.get(k)).claimId).toBe(lease?.claimId);
        await lease?.renew();
        await lease?.release();
        await expect(space.claims.get(k)).rejects.toMatchObject({ status: 404 });
        report.add('keys round-tripped');
      }),
      { seed: SEED, numRuns: RUNS },
    );
    await lh.close();
  });
});
