/** The structured request log: one JSON line per request, with its id, operation, status and duration, and no secret. */
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createRequestLog } from '../../packages/server/src/adapters/cli/request-log.js';
import { ADMIN, expectStatus, startServer, stopServers } from '../support/leasehold-harness.js';

afterEach(stopServers);

function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  return { lines, stream };
}

describe('request log', () => {
  it('writes one JSON line per request with request id, operationId, status and duration, never a key or token', async () => {
    const { lines, stream } = capture();
    const log = createRequestLog({ level: 'info', destination: stream });
    const server = await startServer({ observer: log.observer });
    const claim = await server.acquire('logged');
    const token = claim.body.token as string;
    const released = await server.call('releaseSpaceClaim', {
      path: { spaceId: claim.body.spaceId, key: 'logged' },
      json: { token },
    });
    expectStatus(released, 200);
    const refused = await server.call('heartbeatClaims', { key: 'lh_no_such_key', json: { ttl: 30 } });
    expect(refused.status).toBe(401);
    await new Promise((resolve) => setImmediate(resolve));

    expect(lines).toHaveLength(3);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.map((p) => [p.operationId, p.status])).toEqual([
      ['acquireSpaceClaim', 201],
      ['releaseSpaceClaim', 200],
      ['heartbeatClaims', 401],
    ]);
    expect(parsed[0]?.requestId).toBe(claim.headers.get('request-id'));
    expect(parsed[2]?.code).toBe('invalid_api_key');
    for (const entry of parsed) {
      expect(typeof entry.durationMs).toBe('number');
      expect(entry.msg).toBe('request');
    }
    const all = lines.join('\n');
    for (const secret of [ADMIN, 'lh_no_such_key', token, 'Bearer', 'authorization']) expect(all).not.toContain(secret);
  });

  it('logs only 5xx answers at level error, and installs no observer at silent', async () => {
    const { lines, stream } = capture();
    const log = createRequestLog({ level: 'error', destination: stream });
    const server = await startServer({ observer: log.observer });
    await server.acquire('quiet');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([]);
    expect(createRequestLog({ level: 'silent', destination: stream }).observer).toBeUndefined();
  });

  it.each(['exit', 'throw'])('writes the lines of the turn a plain node process ends in (%s) to stdout', async (how) => {
    const fixture = fileURLToPath(new URL('./fixtures/log-at-exit.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, how], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(how === 'exit' ? 0 : 1);
    const lines = stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { line: number; msg: string });
    expect(lines.map((l) => [l.line, l.msg])).toEqual([
      [1, 'before the end'],
      [2, 'before the end'],
    ]);
  });
});
