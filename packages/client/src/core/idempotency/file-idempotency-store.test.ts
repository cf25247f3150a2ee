import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FileIdempotencyStore } from './file-idempotency-store.js';
import { ManualClock } from '../monotonic-clock.js';

const DAY = 24 * 60 * 60 * 1000;
const dirs: string[] = [];
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('FileIdempotencyStore', () => {
  let dir: string;
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('get / put / reserve / delete; one file per operation, named by hash', async () => {
    dir = join(await tempDir('leasehold-fs-'), 'nested', 'store');
    const store = new FileIdempotencyStore({ directory: dir });
    expect(await store.get('op/1')).toBeUndefined();
    expect(await store.reserve('op/1', 'k1', DAY)).toBe('k1');
    expect(await store.reserve('op/1', 'k2', DAY)).toBe('k1');
    await store.put('op/2', 'k3', DAY);
    await store.put('op/2', 'k4', DAY);
    expect(await store.get('op/2')).toBe('k4');
    const names = (await readdir(dir)).filter((n) => !n.startsWith('.tmp-')).sort();
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^[0-9a-f]{64}\.json$/);
    await store.delete('op/1');
    await store.delete('op/1');
    expect(await store.get('op/1')).toBeUndefined();
    expect(await new FileIdempotencyStore({ directory: dir }).get('op/2')).toBe('k4');
  });

  it('expires entries on the wall clock; reserve replaces an expired entry; prune deletes it', async () => {
    dir = await tempDir('leasehold-fs-');
    const clock = new ManualClock(Date.parse('2026-11-29T00:00:00Z'));
    const store = new FileIdempotencyStore({ directory: dir, clock, pruneIntervalMs: Number.POSITIVE_INFINITY });
    await store.put('old', 'k-old', DAY);
    await store.put('new', 'k-new', 2 * DAY);
    clock.advance(DAY);
    expect(await store.get('old')).toBeUndefined();
    expect(await store.prune()).toBe(1);
    expect(await store.get('new')).toBe('k-new');
    await store.put('old', 'k-again', 10);
    clock.advance(10);
    expect(await store.reserve('old', 'k-fresh', DAY)).toBe('k-fresh');
  });

  it('ignores unreadable entries and leftover temp files, and sweeps them once stale', async () => {
    dir = await tempDir('leasehold-fs-');
    const store = new FileIdempotencyStore({ directory: dir, staleTempMs: 1_000, pruneIntervalMs: Number.POSITIVE_INFINITY });
    await store.put('op', 'k', DAY);
    const [entry] = await readdir(dir);
    await writeFile(join(dir, entry ?? ''), '{"v":1,"operationId":"op","key":"k","expi');
    await writeFile(join(dir, '.tmp-999-abc'), '{"v":1,"operationId":"op","key":"half');
    expect(await store.get('op')).toBeUndefined();
    expect(await store.prune()).toBe(0);
    const old = new Date(Date.now() - 5_000);
    for (const name of await readdir(dir)) await utimes(join(dir, name), old, old);
    expect(await store.prune()).toBe(2);
    // Deleting the corrupt entry left its successor marker (debris a later sweep removes once stale).
    expect((await readdir(dir)).filter((name) => !name.endsWith('.next'))).toEqual([]);
    for (const name of await readdir(dir)) await utimes(join(dir, name), old, old);
    await store.prune();
    expect(await readdir(dir)).toEqual([]);
    expect(await store.reserve('op', 'k2', DAY)).toBe('k2');
  });

  it('stores nothing but the hash in the file name', async () => {
    dir = await tempDir('leasehold-fs-');
    const store = new FileIdempotencyStore({ directory: dir });
    await store.put('customer@example.com/claim', 'k', DAY);
    const [name] = await readdir(dir);
    expect(name).not.toContain('customer');
    expect(JSON.parse(await readFile(join(dir, name ?? ''), 'utf8'))).toMatchObject({ v: 1, operationId: 'customer@example.com/claim', key: 'k' });
  });
});

/** Compiles the store to plain JS so that child processes can run it with bare `node`. */
async function buildChildScript(): Promise<string> {
  const out = await tempDir('leasehold-child-');
  // The store and what it imports, bundled into one plain ESM file (child processes run it with bare `node`).
  const here = fileURLToPath(new URL('.', import.meta.url));
  await build({ entryPoints: [join(here, 'file-idempotency-store.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: join(out, 'file-idempotency-store.js'), logLevel: 'error' });
  await writeFile(join(out, 'package.json'), '{"type":"module"}');
  await writeFile(join(out, 'child.js'), CHILD_SOURCE);
  return join(out, 'child.js');
}

/**
 * The child: `crash` mode loops forever over random put / reserve / delete on 20 long-lived and 5
 * already-expired operations, logging an intent line before each and a completion line after
 * (synchronous writes, so nothing logged is lost on SIGKILL); `race` mode reserves the same ids as
 * its siblings and puts ids of its own.
 */
const CHILD_SOURCE = `
import { writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { FileIdempotencyStore } from './file-idempotency-store.js';
const [dir, mode, name] = process.argv.slice(2);
const store = new FileIdempotencyStore({ directory: dir, pruneIntervalMs: 0 });
const say = (line) => writeSync(1, line + '\\n');
const fresh = (op) => op + '~' + randomBytes(24).toString('hex');
if (mode === 'race') {
  for (let i = 0; i < 40; i++) {
    say('R ' + i + ' ' + (await store.reserve('shared-' + i, fresh('shared-' + i), 86400000)));
    await store.put(name + '-' + i, name + '-key-' + i, 86400000);
  }
  process.exit(0);
}
say('ready');
for (;;) {
  const short = Math.random() < 0.2;
  const op = short ? 'short-' + Math.floor(Math.random() * 5) : 'op-' + Math.floor(Math.random() * 20);
  const ttl = short ? 1 : 86400000;
  const roll = Math.random();
  if (roll < 0.4) {
    const key = fresh(op);
    say('I ' + op + ' reserve ' + key);
    say('C ' + op + ' ' + (await store.reserve(op, key, ttl)));
  } else if (roll < 0.8) {
    const key = fresh(op);
    say('I ' + op + ' put ' + key);
    await store.put(op, key, ttl);
    say('C ' + op + ' ' + key);
  } else {
    say('I ' + op + ' delete -');
    await store.delete(op);
    say('C ' + op + ' -');
  }
}
`;

function run(script: string, args: string[], killAfterReadyMs?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const before = out;
      out += chunk.toString('utf8');
      if (killAfterReadyMs !== undefined && !before.includes('ready\n') && out.includes('ready\n')) {
        setTimeout(() => child.kill('SIGKILL'), killAfterReadyMs);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (killAfterReadyMs !== undefined ? signal === 'SIGKILL' : code === 0) resolve(out);
      else reject(new Error(`child exited with ${code ?? signal}: ${err}`));
    });
  });
}

describe('FileIdempotencyStore across processes', () => {
  let script: string;
  beforeAll(async () => {
    script = await buildChildScript();
  });

  it('reads back consistently after a writer is SIGKILLed at random moments, again and again', async () => {
    const dir = await tempDir('leasehold-crash-');
    const state = new Map<string, string | undefined>();
    let completed = 0;
    let interrupted = 0;
    // At least 25 kills; more rounds on a loaded machine until enough operations completed.
    for (let round = 0; round < 100 && (round < 25 || completed <= 25); round++) {
      const out = await run(script, [dir, 'crash'], Math.floor(Math.random() * 25));
      // Replay the log against the model; `possible` is what the store may hold for an op.
      const possible = new Map<string, Array<string | undefined>>();
      const intents = new Map<string, { action: string; before: string | undefined }>();
      for (const line of out.split('\n').slice(0, -1)) {
        const [tag, op = '', word, key] = line.split(' ');
        if (op.startsWith('short-')) continue;
        if (tag === 'I') {
          const before = state.get(op);
          const next = word === 'delete' ? undefined : word === 'reserve' && before !== undefined ? before : key;
          possible.set(op, [before, next]);
          intents.set(op, { action: word ?? '', before });
        } else if (tag === 'C') {
          completed++;
          const result = word === '-' ? undefined : word;
          const intent = intents.get(op);
          // The same operation id yields the same key, across any number of crashes and restarts.
          if (intent?.action === 'reserve' && intent.before !== undefined) expect(result, `reserve ${op}`).toBe(intent.before);
          possible.delete(op);
          state.set(op, result);
        }
      }
      interrupted += possible.size;

      const store = new FileIdempotencyStore({ directory: dir, pruneIntervalMs: Number.POSITIVE_INFINITY });
      // Every entry file is whole: valid JSON of the entry shape (temp files may be torn; they are ignored).
      for (const name of (await readdir(dir)).filter((n) => n.endsWith('.json'))) {
        expect(JSON.parse(await readFile(join(dir, name), 'utf8')), name).toMatchObject({ v: 1, key: expect.any(String), expiresAt: expect.any(Number) });
      }
      for (let i = 0; i < 20; i++) {
        const op = `op-${i}`;
        const actual = await store.get(op);
        const allowed = possible.get(op) ?? [state.get(op)];
        expect(allowed, `${op} after round ${round}`).toContain(actual);
        state.set(op, actual);
      }
      for (let i = 0; i < 5; i++) expect(await store.get(`short-${i}`)).toBeUndefined();
    }
    expect(completed).toBeGreaterThan(25);

    const store = new FileIdempotencyStore({ directory: dir, staleTempMs: 0, pruneIntervalMs: Number.POSITIVE_INFINITY });
    await store.prune();
    const left = await readdir(dir);
    expect(left.filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    expect(left.length).toBe([...state.values()].filter((v) => v !== undefined).length);
    console.info(`crash test: ${completed} operations completed, ${interrupted} cut short by SIGKILL`);
  }, 300_000); // 25 to 100 child processes, each a Node start: ~10 s idle, minutes on a busy machine

  it('several processes sharing a directory agree on one key per operation and keep each other\'s entries', async () => {
    const dir = await tempDir('leasehold-race-');
    const outs = await Promise.all(['a', 'b', 'c'].map((name) => run(script, [dir, 'race', name])));
    const reserved = outs.map((out) => new Map(out.trim().split('\n').map((line) => line.split(' ').slice(1) as [string, string])));
    const store = new FileIdempotencyStore({ directory: dir });
    for (let i = 0; i < 40; i++) {
      const keys = new Set(reserved.map((m) => m.get(String(i))));
      expect(keys.size, `shared-${i}`).toBe(1);
      expect(await store.get(`shared-${i}`)).toBe([...keys][0]);
      for (const name of ['a', 'b', 'c']) expect(await store.get(`${name}-${i}`)).toBe(`${name}-key-${i}`);
    }
  }, 60_000);
});
