/**
 * The Python SDK's own checks, run by the README's one test command: its pytest suites against
 * the real reference server (packages/python/tests start the CLI themselves) and `mypy --strict`
 * on the package and its tests. Nothing is installed here: scripts/install-python-tools.sh
 * (called by scripts/test.sh) apt-installs Debian's python3-httpx, -pytest and -mypy when missing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { cliStoreArgs, TEST_STORE } from '../support/test-store.js';

const PACKAGE = fileURLToPath(new URL('../../packages/python', import.meta.url));
/** Debian's interpreter (the one with python3-httpx); a pyenv `python3` first on PATH lacks it. */
const PYTHON = process.env.LEASEHOLD_PYTHON ?? '/usr/bin/python3';
const scratch = mkdtempSync(join(tmpdir(), 'leasehold-python-'));
/** The pytest files whose outcome no store decides (no server, or only its sockets): memory project only; every other suite runs on every store. */
const STORE_INDEPENDENT_SUITES = ['tests/test_errors.py', 'tests/test_idempotency_store.py', 'tests/test_packaging.py', 'tests/test_scheduler_core.py', 'tests/test_transport.py'];
/** mypy's cache outlives the run (tmp/ is ignored): a warm run checks only what changed. */
const MYPY_CACHE = fileURLToPath(new URL('../../tmp/mypy-cache', import.meta.url));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The Python SDK's checks. pytest runs on every store project this file is in (memory, and
 * postgres: its server gets `--store` with a fresh database through LEASEHOLD_PY_STORE); mypy
 * does not depend on the store, so it runs with the memory project only.
 */
/** Runs `python3 args` in packages/python; resolves with the exit code and everything it printed. */
function python(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, {
      cwd: PACKAGE,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe.concurrent('the Python SDK (packages/python)', () => {
  test(`pytest: every suite passes against the reference server (${TEST_STORE} store)`, { timeout: 360_000 }, async () => {
    const store = await cliStoreArgs();
    try {
      const env: Record<string, string> = store.args[1] === undefined ? {} : { LEASEHOLD_PY_STORE: store.args[1] };
      // On a SQL store every suite whose outcome the store decides.
      const files = TEST_STORE === 'memory' ? [] : STORE_INDEPENDENT_SUITES.map((file) => `--ignore=${file}`);
      const { code, output } = await python(['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--durations', '5', '--basetemp', join(scratch, 'pytest'), ...files], env);
      expect(output).toMatch(/\d+ passed/);
      expect(code, output).toBe(0);
    } finally {
      await store.dispose();
    }
  });

  if (TEST_STORE === 'memory') test('mypy --strict is clean on the package, its tests and its examples', { timeout: 360_000 }, async () => {
    const { code, output } = await python(['-m', 'mypy', '--strict', '--cache-dir', MYPY_CACHE, 'src', 'tests', 'examples']);
    expect(output).toMatch(/^Success: no issues found/m);
    expect(code, output).toBe(0);
  });
});
