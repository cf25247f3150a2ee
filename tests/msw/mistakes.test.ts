// The usual mistakes with the mocks get one message naming the mistake and the fix, at once:
// a client left on undici (MSW never sees it), a client whose baseUrl the handlers do not cover,
// and a scenario lever naming an operation that does not exist.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, Leasehold, type Logger } from '../../packages/client/src/index.js';
import { createLeaseholdHandlers } from '../../packages/msw/src/index.js';

const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const leasehold = createLeaseholdHandlers({ baseUrl: 'https://leasehold.test' });
const unhandled: string[] = [];
const mswServer = setupServer(...leasehold.handlers);
beforeAll(() => mswServer.listen({ onUnhandledRequest: (request) => void unhandled.push(`${request.method} ${request.url}`) }));
afterAll(() => mswServer.close());

/** A logger that records what the client logs (retries are logged at warn). */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const record = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { lines, debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}

async function failureOf(lh: Leasehold): Promise<unknown> {
  try {
    await lh.space(SPACE).run(crypto.randomUUID(), { holder: 'w' }).claim('k').acquire();
  } catch (error) {
    return error;
  } finally {
    await lh.close();
  }
  throw new Error('the call succeeded');
}

describe('mistakes with the MSW mocks', () => {
  it('forgetting fetch: ConnectionError naming MSW and the fix, not retried', async () => {
    const logger = recordingLogger();
    const error = await failureOf(new Leasehold({ baseUrl: 'https://leasehold.test', apiKey: 'lh_test_admin', logger, logLevel: 'debug' }));
    expect(error).toBeInstanceOf(ConnectionError);
    const message = (error as Error).message;
    expect(message).toMatch(/leasehold\.test is a reserved test name \(RFC 6761\) that no DNS resolves/);
    expect(message).toContain('MSW intercepts `fetch`. Pass it — new Leasehold({ ..., fetch })');
    expect(message).toContain("LeaseholdDispatcher from '@leasehold/msw/dispatcher'");
    expect(logger.lines.filter((line) => /Retrying|attempt 2/.test(line))).toEqual([]);
    expect(logger.lines.filter((line) => / attempt 1$/.test(line))).toHaveLength(1);
  });

  it('a baseUrl the handlers do not cover: one message naming createLeaseholdHandlers, MSW warned once', async () => {
    unhandled.length = 0;
    const error = await failureOf(new Leasehold({ baseUrl: 'https://other.test', apiKey: 'lh_test_admin', fetch }));
    expect(error).toBeInstanceOf(ConnectionError);
    const message = (error as Error).message;
    expect(message).toContain('no mock answered https://other.test');
    expect(message).toContain('give createLeaseholdHandlers({ baseUrl }) and the client the same base URL');
    expect(unhandled).toHaveLength(1);
  });

  it('a typo of an operation id: refused when armed, with the nearest valid one', () => {
    expect(() => leasehold.scenario.failNext('acquireClaim' as never)).toThrow(/did you mean 'acquireSpaceClaim'/);
  });
});
