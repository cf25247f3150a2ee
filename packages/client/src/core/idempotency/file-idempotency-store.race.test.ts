/**
 * FileIdempotencyStore with real processes: racing `reserve()` must agree on one key whatever
 * the entry on disk is (missing, expired, corrupt, torn, of another shape or operation, empty,
 * unreadable), and `prune()` must go on past what it cannot read (a directory, a FIFO, another
 * user's 0600 file). Children are plain `node` on the store transpiled to JS; when the suite runs
 * as root, "another user" is `nobody` (runuser), since root reads every file.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileIdempotencyStore } from './file-idempotency-store.js';

const DAY = 86_400_000;
const RACERS = 4;
const OPS = 12;
const AS_ROOT = process.getuid?.() === 0;
const dirs: string[] = [];
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o777); // children may run as another user
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const entryFile = (dir: string, operationId: string): string => join(dir, `${createHash('sha256').update(operationId, 'utf8').digest('hex')}.json`);
const entry = (operationId: string, key: string, expiresAt: number): string => JSON.stringify({ v: 1, operationId, key, expiresAt });

/**
 * The child: waits until `<dir>/go` exists (so every racer starts together), then reserves
 * `<prefix>-0 … <prefix>-<n-1>` with keys of its own and prints `R <i> <key>` (or `E <i> <error>`);
 * in `prune` mode it prints what `prune()` returned.
 */
const CHILD_SOURCE = `
import { existsSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { FileIdempotencyStore } from './file-idempotency-store.js';
const [dir, mode, prefix, count] = process.argv.slice(2);
const say = (line) => writeSync(1, line + '\\n');
if (mode === 'prune') {
  say('P ' + (await new FileIdempotencyStore({ directory: dir, staleTempMs: 0 }).prune()));
  process.exit(0);
}
// Racers also sweep (after their first write), as every store does.
const store = new FileIdempotencyStore({ directory: dir });
const until = Date.now() + 10000;
while (!existsSync(dir + '/go') && Date.now() < until) await new Promise((resolve) => setImmediate(resolve));
for (let i = 0; i < Number(count); i++) {
  try {
    say('R ' + i + ' ' + (await store.reserve(prefix + '-' + i, 'k-' + randomBytes(12).toString('hex'), 86400000)));
  } catch (error) {
    say('E ' + i + ' ' + error.name + ' ' + String(error.message).replaceAll(' ', '_'));
  }
}
`;

async function buildChildScript(): Promise<string> {
  const out = await tempDir('leasehold-race-child-');
  // The store and what it imports, bundled into one plain ESM file (child processes run it with bare `node`).
  const here = fileURLToPath(new URL('.', import.meta.url));
  await build({ entryPoints: [join(here, 'file-idempotency-store.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: join(out, 'file-idempotency-store.js'), logLevel: 'error' });
  await writeFile(join(out, 'package.json'), '{"type":"module"}');
  await writeFile(join(out, 'child.js'), CHILD_SOURCE);
  for (const name of await readdir(out)) await chmod(join(out, name), 0o644);
  await chmod(out, 0o755);
  return join(out, 'child.js');
}

/** Runs the child (as `nobody` when asked and running as root); resolves with its stdout lines. */
function run(script: string, args: string[], asOtherUser = false): Promise<string[]> {
  const [command, argv] = asOtherUser && AS_ROOT ? ['runuser', ['-u', 'nobody', '--', process.execPath, script, ...args]] : [process.execPath, [script, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv as string[], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim().split('\n')) : reject(new Error(`child exited with ${code}: ${err}`))));
  });
}

/** What to leave at an entry's path before the race. */
const STATES: Array<[string, (dir: string, op: string) => Promise<void>, { otherUser?: boolean }?]> = [
  ['missing', async () => {}],
  ['expired', (dir, op) => writeFile(entryFile(dir, op), entry(op, 'k-old', Date.now() - 1_000))],
  ['corrupt', (dir, op) => writeFile(entryFile(dir, op), 'garbage{')],
  ['torn (cut mid-write)', (dir, op) => writeFile(entryFile(dir, op), entry(op, 'k-torn', Date.now() + DAY).slice(0, 30))],
  ['of another shape', (dir, op) => writeFile(entryFile(dir, op), JSON.stringify({ v: 2, operationId: op, key: 'k', expiresAt: Date.now() + DAY }))],
  ['of another operation (a hash collision)', (dir, op) => writeFile(entryFile(dir, op), entry('other', 'k-other', Date.now() + DAY))],
  ['empty', (dir, op) => writeFile(entryFile(dir, op), '')],
  [
    'unreadable by the racers (another user\'s 0600 file)',
    async (dir, op) => {
      await writeFile(entryFile(dir, op), entry(op, 'k-hidden', Date.now() + DAY));
      await chmod(entryFile(dir, op), AS_ROOT ? 0o600 : 0o000);
    },
    { otherUser: true },
  ],
];

describe('FileIdempotencyStore: racing processes and an untidy directory', () => {
  let script: string;
  beforeAll(async () => {
    script = await buildChildScript();
  });

  it.each(STATES)('%i racers reserving an entry that is %s agree on one key, which the store then holds'.replace('%i', String(RACERS)), async (_, prepare, options = {}) => {
    const dir = await tempDir('leasehold-race-');
    const prefix = 'op';
    for (let i = 0; i < OPS; i++) await prepare(dir, `${prefix}-${i}`);
    const racing = Array.from({ length: RACERS }, () => run(script, [dir, 'race', prefix, String(OPS)], options.otherUser));
    await writeFile(join(dir, 'go'), '');
    const outputs = await Promise.all(racing);
    const store = new FileIdempotencyStore({ directory: dir, pruneIntervalMs: Number.POSITIVE_INFINITY });
    for (let i = 0; i < OPS; i++) {
      const answers = outputs.map((lines) => lines.find((line) => line.startsWith(`R ${i} `) || line.startsWith(`E ${i} `)));
      const keys = new Set(answers.map((line) => line?.split(' ')[2]));
      expect(answers.every((line) => line?.startsWith('R ')), `${prefix}-${i}: ${answers.join(' | ')}`).toBe(true);
      expect(keys.size, `${prefix}-${i}: ${[...keys].join(', ')}`).toBe(1);
      const [key] = keys;
      expect(key).toMatch(/^k-[0-9a-f]{24}$/);
      expect(await store.get(`${prefix}-${i}`)).toBe(key);
    }
  }, 60_000);

  it('something that is not a file at an entry\'s path (a directory) fails every racer alike, with a LeaseholdError', async () => {
    const dir = await tempDir('leasehold-race-');
    for (let i = 0; i < OPS; i++) await mkdir(entryFile(dir, `op-${i}`));
    const racing = Array.from({ length: RACERS }, () => run(script, [dir, 'race', 'op', String(OPS)]));
    await writeFile(join(dir, 'go'), '');
    for (const lines of await Promise.all(racing)) {
      expect(lines.map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual(Array.from({ length: OPS }, (_, i) => `E ${i} LeaseholdError`));
    }
  }, 60_000);

  it('prune goes on past a directory, a FIFO and another user\'s 0600 file, and still removes every expired entry and stale temp file', async () => {
    const dir = await tempDir('leasehold-prune-');
    const expired = Array.from({ length: 6 }, (_, i) => `expired-${i}`);
    const kept = ['live-a', 'live-b'];
    // Interleave what cannot be read between what must go, whatever order readdir returns.
    for (const [i, op] of expired.entries()) {
      await writeFile(entryFile(dir, op), entry(op, 'k', Date.now() - 1_000));
      await chmod(entryFile(dir, op), 0o666);
      await mkdir(entryFile(dir, `a-directory-${i}`));
    }
    for (const op of kept) await writeFile(entryFile(dir, op), entry(op, 'k', Date.now() + DAY));
    execFileSync('mkfifo', [entryFile(dir, 'a-fifo')]);
    const foreign = entryFile(dir, 'another-users-entry');
    await writeFile(foreign, entry('another-users-entry', 'k', Date.now() - 1_000));
    await chmod(foreign, AS_ROOT ? 0o600 : 0o000);
    const temp = join(dir, '.tmp-999-abc');
    await writeFile(temp, 'half');
    await chmod(temp, 0o666);
    const old = new Date(Date.now() - 120_000);
    await utimes(temp, old, old);

    const [line] = await run(script, [dir, 'prune'], true);
    expect(line).toBe(`P ${expired.length + 1}`);
    const left = new Set(await readdir(dir));
    for (const op of expired) expect(left.has(entryFile(dir, op).slice(dir.length + 1))).toBe(false);
    expect(left.has('.tmp-999-abc')).toBe(false);
    for (const op of [...kept, 'a-fifo', 'another-users-entry', 'a-directory-0']) expect(left.has(entryFile(dir, op).slice(dir.length + 1)), op).toBe(true);
    // The store keeps working around what it left alone.
    const store = new FileIdempotencyStore({ directory: dir, pruneIntervalMs: Number.POSITIVE_INFINITY });
    expect(await store.get('live-a')).toBe('k');
    expect(await store.get('a-fifo')).toBeUndefined();
  }, 60_000);
});
