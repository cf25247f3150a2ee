/** The `leasehold-server` CLI, spawned as a process: startup line, real HTTP, --keys, SIGTERM and bad flags. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { ADMIN, SCOPE, SPACE, envelopeProblems, expectContract } from '../support/leasehold-harness.js';
import { observe } from '../support/response-contract.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LISTENING = /^Leasehold reference server listening on (http:\/\/127\.0\.0\.1:(\d+))$/;

interface Cli {
  child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const scratch: string[] = [];

afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Spawns the CLI from the repository root; the process is killed if the test leaves it running. */
function runCli(args: string[], env: Record<string, string> = {}, command: string[] = [process.execPath, '--import', 'tsx', 'packages/server/src/cli.ts']): Cli {
  const child = spawn(command[0]!, [...command.slice(1), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Waits for the first stdout line and answers the URL it announces. */
async function listening(cli: Cli): Promise<string> {
  const line = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const newline = cli.stdout().indexOf('\n');
      if (newline >= 0) resolve(cli.stdout().slice(0, newline));
    };
    cli.child.stdout!.on('data', check);
    cli.exited.then(({ code }) => reject(new Error(`the CLI exited (${code}) before listening: ${cli.stderr()}`)));
    check();
  });
  const match = LISTENING.exec(line);
  expect(match, `first stdout line: ${line}`).not.toBeNull();
  return match![1]!;
}

async function stop(cli: Cli): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  cli.child.kill('SIGTERM');
  return cli.exited;
}

describe('leasehold-server CLI', () => {
  it('listens on 127.0.0.1, serves the spec, the API and /_control, and exits 0 on SIGTERM', async () => {
    const cli = runCli(['--port', '0', '--control', '--clock', 'manual']);
    const url = await listening(cli);

    const spec = await fetch(`${url}/openapi.json`);
    expect(spec.status).toBe(200);
    const bundled = JSON.parse(readFileSync(join(ROOT, 'spec/dist/openapi.json'), 'utf8'));
    expect(await spec.json()).toEqual({ ...bundled, servers: [{ url, description: expect.any(String) }] });

    const acquired = await observe(
      await fetch(`${url}/v1/spaces/${SPACE}/claims`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN}`, 'Idempotency-Key': 'cli-acquire-1', 'Content-Type': 'application/json' },
        body: JSON.stringify({ key: 'reports/2026-11', scopeId: SCOPE, holder: 'worker-1', holderSession: 'sess-1' }),
      }),
    );
    expectContract('acquireSpaceClaim', acquired);
    expect(acquired.status).toBe(201);

    const clock = await observe(await fetch(`${url}/_control/clock`));
    expectContract('getControlClock', clock);
    expect(clock.body).toMatchObject({ object: 'clock', mode: 'manual', now: Date.UTC(2026, 0, 1) });

    expect(cli.stdout()).toContain('API keys accepted:');
    expect(cli.stdout()).toContain(`spec: ${url}/openapi.json`);
    expect(cli.stdout()).toContain(`clock: manual; test controls at ${url}/_control`);
    expect(await stop(cli)).toEqual({ code: 0, signal: null });
  });

  it('writes a quiet server\'s request line at once, and every line before it exits on SIGTERM', async () => {
    const cli = runCli(['--port', '0']);
    const url = await listening(cli);
    const requestLines = () => cli.stdout().split('\n').filter((line) => line.includes('"msg":"request"'));
    const one = await fetch(`${url}/v1/spaces/${SPACE}/claims`, { headers: { Authorization: `Bearer ${ADMIN}` } });
    expect(one.status).toBe(200);
    const sent = performance.now();
    // A turn's lines are written together: one line on a quiet server goes out in its own turn.
    await expect.poll(() => requestLines().length, { timeout: 2_000, interval: 10 }).toBe(1);
    expect(performance.now() - sent).toBeLessThan(500);
    expect(JSON.parse(requestLines()[0]!)).toMatchObject({ operationId: 'listSpaceClaims', status: 200, requestId: one.headers.get('request-id') });
    // Three more, then SIGTERM at once: the drain's own lines follow them.
    for (let i = 0; i < 3; i++) expect((await fetch(`${url}/v1/spaces/${SPACE}/claims`, { headers: { Authorization: `Bearer ${ADMIN}` } })).status).toBe(200);
    expect(await stop(cli)).toEqual({ code: 0, signal: null });
    expect(requestLines()).toHaveLength(4);
    expect(cli.stdout()).toMatch(/"msg":"stopped"/);
  });

  it('serves / and /api by default; a repeated --base-path replaces them; --docs-url moves every doc_url', async () => {
    const byDefault = runCli(['--port', '0']);
    const url = await listening(byDefault);
    for (const mount of ['', '/api']) {
      const answer = await fetch(`${url}${mount}/v1/tasks/7`, { headers: { Authorization: `Bearer ${ADMIN}` } });
      expect([mount, answer.status, ((await answer.json()) as { doc_url: string }).doc_url]).toEqual([mount, 404, `${url}${mount}/docs#section/task_not_found`]);
    }
    expect(byDefault.stdout()).toContain(`API base URLs: ${url}  ${url}/api`);
    expect(await stop(byDefault)).toEqual({ code: 0, signal: null });

    const mounted = runCli(['--port', '0', '--base-path', '/edge', '--base-path', '/edge/v0/', '--docs-url', 'https://docs.example.com/leasehold/']);
    const edge = await listening(mounted);
    const statusAt = async (path: string) => {
      const answer = await fetch(`${edge}${path}`, { headers: { Authorization: `Bearer ${ADMIN}` } });
      return [answer.status, ((await answer.json()) as { code: string; doc_url?: string })] as const;
    };
    expect(await statusAt('/edge/v1/tasks/7')).toEqual([404, expect.objectContaining({ code: 'task_not_found', doc_url: 'https://docs.example.com/leasehold#section/task_not_found' })]);
    expect((await statusAt('/edge/v0/v1/tasks/7'))[1].code).toBe('task_not_found');
    expect(await statusAt('/v1/tasks/7')).toEqual([404, expect.objectContaining({ code: 'route_not_found' })]);
    expect(await stop(mounted)).toEqual({ code: 0, signal: null });
  });

  it('refuses a --base-path without a leading / and a --docs-url that is not an http(s) URL', async () => {
    for (const args of [['--base-path', 'api'], ['--docs-url', 'docs.example.com']]) {
      const cli = runCli(['--port', '0', ...args]);
      const { code } = await cli.exited;
      expect(code, args.join(' ')).toBe(2);
      expect(cli.stderr()).toMatch(new RegExp(args[0]!));
    }
  });

  it('loads --keys from a file: a rate-limited key gets 429, a blocked key 403 with no code, demo keys are gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-cli-'));
    scratch.push(dir);
    const keysFile = join(dir, 'keys.json');
    writeFileSync(
      keysFile,
      JSON.stringify({
        keys: [
          { apiKey: 'lh_file_limited', accountId: 'acct_file', rateLimitPerSecond: 1 },
          { apiKey: 'lh_live_3f9a1c7e5b2d8f0a6c4e2b9d', accountId: 'acct_live' },
          { apiKey: 'lh_file_blocked', accountId: 'acct_file', blocked: true },
        ],
      }),
    );
    const cli = runCli(['--port', '0', '--clock', 'manual', '--keys', keysFile, '--base-path', '/api']);
    const url = await listening(cli);
    // A production key is never printed: a masked form and a fingerprint instead.
    // (a short key shows no part of itself: only its fingerprint)
    expect(cli.stdout()).toMatch(/^ {2}… \(sha256 [0-9a-f]{12}\) {2}account acct_file/m);
    expect(cli.stdout()).toMatch(/^ {2}lh_live_…2b9d \(sha256 [0-9a-f]{12}\) {2}account acct_live/m);
    for (const secret of ['lh_file_limited', 'lh_file_blocked', 'lh_live_3f9a1c7e5b2d8f0a6c4e2b9d']) expect(cli.stdout()).not.toContain(secret);
    const list = (key: string) => fetch(`${url}/api/v1/spaces/${SPACE}/claims`, { headers: { Authorization: `Bearer ${key}` } }).then(observe);

    const first = await list('lh_file_limited');
    expectContract('listSpaceClaims', first);
    expect(first.status).toBe(200);
    const limited = await list('lh_file_limited');
    expectContract('listSpaceClaims', limited);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');

    const blocked = await list('lh_file_blocked');
    expectContract('listSpaceClaims', blocked);
    expect(blocked.status).toBe(403);
    expect(blocked.body).not.toHaveProperty('code');

    const demo = await list(ADMIN);
    expectContract('listSpaceClaims', demo);
    expect(demo.status).toBe(401);

    // Without --control, /_control does not exist.
    const control = await observe(await fetch(`${url}/api/_control/clock`));
    expect(control.status).toBe(404);
    expect(envelopeProblems(control)).toEqual([]);
    expect(await stop(cli)).toEqual({ code: 0, signal: null });
  });

  it.each([
    ['an unknown flag', ['--bogus']],
    ['a port that is not a number', ['--port', 'abc']],
    ['an unknown clock', ['--clock', 'fast']],
    ['a base path without a leading /', ['--base-path', 'api']],
  ])('exits 2 with the usage on %s', async (_name, args) => {
    const cli = runCli(args);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toMatch(/^leasehold-server: .+\n\nUsage: leasehold-server \[options\]/);
    expect(cli.stdout()).toBe('');
  });

  it('prints the usage on --help, -h and `pnpm start -- --help`, and the version on --version; each exits 0', async () => {
    const runs = [runCli(['--help']), runCli(['-h']), runCli(['start', '--', '--help'], {}, ['pnpm'])];
    for (const cli of runs) {
      expect((await cli.exited).code, cli.stderr()).toBe(0);
      expect(cli.stdout()).toMatch(/^(\$ tsx .*\n)?Usage: leasehold-server \[options\]/);
    }
    const version = runCli(['--version']);
    expect((await version.exited).code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'packages/server/package.json'), 'utf8')) as { version: string };
    expect(version.stdout()).toBe(`leasehold-server ${pkg.version}\n`);
  }, 90_000);

  it('names the variable a bad value came from, and says unknown options in its own words', async () => {
    const port = runCli([], { LEASEHOLD_PORT: 'abc' });
    const unknown = runCli(['--stor', 'memory']);
    expect((await port.exited).code).toBe(2);
    expect(port.stderr()).toMatch(/^leasehold-server: LEASEHOLD_PORT must be a port number 0–65535, got abc\n\nUsage:/);
    expect((await unknown.exited).code).toBe(2);
    expect(unknown.stderr()).toMatch(/^leasehold-server: unknown option --stor \(did you mean --store\?\)\n\nUsage:/);
    expect(unknown.stderr()).not.toMatch(/positional argument|ERR_PARSE_ARGS/);
  }, 60_000);

  it('refuses an invalid keys file with a message naming it and a non-zero exit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-cli-'));
    scratch.push(dir);
    const keysFile = join(dir, 'keys.json');
    writeFileSync(keysFile, JSON.stringify([{ apiKey: 'has space', accountId: 'acct' }]));
    const cli = runCli(['--port', '0', '--keys', keysFile]);
    const { code } = await cli.exited;
    expect(code).not.toBe(0);
    expect(cli.stderr()).toContain(keysFile);
    expect(cli.stdout()).toBe('');
  });
});
