/** `leasehold-server --store` and `leasehold-server migrate`, spawned as processes, on the run's throwaway PostgreSQL cluster. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createTestDatabase } from '../support/postgres-database.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SPACE = '6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a';
const SCOPE = '0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c';

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function runCli(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/cli.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  return { child, stdout: () => out, stderr: () => err, exited: new Promise((resolve) => child.once('close', (code) => resolve(code))) };
}

async function listeningUrl(run: Run): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stdout());
      if (match) resolve(match[1]!);
    };
    run.child.stdout!.on('data', check);
    void run.exited.then((code) => reject(new Error(`exited ${code}: ${run.stderr()}`)));
  });
}

let db: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('leasehold-server --store', () => {
  it('refuses an unreachable database at start with a clear message, no password, and a non-zero exit', async () => {
    const run = runCli(['--store', 'postgres://leasehold:s3cret@127.0.0.1:1/leasehold', '--port', '0']);
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(/Cannot connect to PostgreSQL at postgres:\/\/leasehold:\*\*\*@127\.0\.0\.1:1\/leasehold/);
    expect(run.stderr()).not.toContain('s3cret');
  });

  it('hides a password in every URL form in start-up errors: ?password=, percent-encoded, postgresql://', async () => {
    const runs = [
      'postgresql://leasehold@127.0.0.1:1/leasehold?sslmode=disable&password=s3cret',
      'postgres://leasehold:s3%40cret@127.0.0.1:1/leasehold',
      'postgres://leasehold@127.0.0.1:1/leasehold?pass%77ord=s3cret',
    ].map((url) => runCli(['--store', url, '--port', '0']));
    for (const run of runs) {
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toMatch(/Cannot connect to PostgreSQL at postgres(ql)?:\/\/leasehold(:\*\*\*)?@127\.0\.0\.1:1\/leasehold/);
      expect(run.stderr()).not.toMatch(/s3/);
    }
  }, 60_000);

  it('refuses a store value that is no store, as a usage error', async () => {
    const run = runCli(['--store', 'redis://127.0.0.1/0', '--port', '0']);
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(/use memory, a postgres:\/\/ URL or a directory/);
  });

  it('migrates with `migrate`, then serves from PostgreSQL (LEASEHOLD_STORE) and keeps the state across a restart; SIGTERM exits 0', async () => {
    const migrate = runCli(['migrate', '--store', db.url]);
    expect(await migrate.exited).toBe(0);
    expect(migrate.stdout()).toMatch(/applied|nothing to apply/);

    const first = runCli(['--port', '0'], { LEASEHOLD_STORE: db.url });
    const url = await listeningUrl(first);
    expect(first.stdout()).toMatch(/store: .* \(postgres\)/);
    const headers = { authorization: 'Bearer lh_test_admin', 'content-type': 'application/json', 'idempotency-key': 'cli-store-1' };
    const body = JSON.stringify({ key: 'durable', scopeId: SCOPE, holder: 'w', holderSession: 's', leaseSeconds: 600 });
    const acquired = await fetch(`${url}/v1/spaces/${SPACE}/claims`, { method: 'POST', headers, body });
    expect(acquired.status).toBe(201);
    const claim = (await acquired.json()) as { claimId: string; fence: number };
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    // A password in the query string (ignored by the test cluster's trust auth) never reaches the banner.
    const second = runCli(['--port', '0', '--store', `${db.url}?application_name=lh&password=s3cret-in-query`]);
    const again = await listeningUrl(second);
    expect(second.stdout()).toMatch(/store: postgres:\/\/\S+\?application_name=lh&password=\*\*\* \(postgres\)/);
    expect(second.stdout() + second.stderr()).not.toContain('s3cret');
    const replay = await fetch(`${again}/v1/spaces/${SPACE}/claims`, { method: 'POST', headers, body });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toMatchObject({ claimId: claim.claimId, fence: claim.fence });
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 60_000);
});
