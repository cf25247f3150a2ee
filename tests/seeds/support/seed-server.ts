/**
 * What every seed-page test starts from: ONE reference server started as a reader would start
 * it — the CLI with its defaults (mounts `/` and `/api`, the real clock, the demo keys) — on a
 * free port of 127.0.0.1 (`--port 0`; on the store projects also `--store`, the project's store:
 * tests/support/test-store.ts), and a shell to run the page's snippets in.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnCli } from '../../support/cli-process.js';
import { cliStoreArgs } from '../../support/test-store.js';

/** The checkout root. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A CLI server: its origin (`http://127.0.0.1:PORT`) and how to stop it. */
export interface SeedServer {
  origin: string;
  stop(): Promise<void>;
}

/** How long a seed suite's `beforeAll` gives its server to start (an embedded store migrates its directory first). */
export const SEED_SERVER_START_MS = 90_000;

/** Starts `leasehold-server --port 0` (as `pnpm start` runs it) and waits for its first line. */
export async function startSeedServer(): Promise<SeedServer> {
  const store = await cliStoreArgs();
  const cli = spawnCli(['--port', '0', ...store.args]);
  const origin = await cli.listening(60_000);
  return {
    origin,
    stop: async () => {
      await cli.stop();
      await store.dispose();
    },
  };
}

/** What a program printed. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file` with `args` and `env` (added to this process's), never rejecting. */
export function run(file: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: ROOT, env: { ...process.env, ...env }, timeout: 20_000, maxBuffer: 8 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** An HTTP answer as `curl -si` prints it: status, headers (lower-case names), body text. */
export interface CurlAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON (`undefined` when empty). */
  json: any;
}

/**
 * Runs one of a page's curl commands in bash, exactly as written once its placeholders are
 * filled, with `-si` added when the page did not ask for the headers (so the answer can be read);
 * `$VARS` come from `env`.
 */
export async function curl(command: string, env: Record<string, string> = {}): Promise<CurlAnswer> {
  const withHeaders = /\s-s?i\s/.test(` ${command} `) ? command : command.replace(/^curl /, 'curl -si ');
  const ran = await run('/bin/bash', ['-c', withHeaders], env);
  if (ran.code !== 0) throw new Error(`curl failed (${ran.code}): ${ran.stderr}\n${withHeaders}`);
  return parseHttp(ran.stdout);
}

/** Parses `HTTP/1.1 200 OK\r\nName: value\r\n\r\nbody`. */
export function parseHttp(raw: string): CurlAnswer {
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  const body = split === -1 ? '' : raw.slice(split + 4);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(/^HTTP\/[\d.]+ (\d{3})/.exec(statusLine)?.[1]), headers, body, json: body.trim() === '' ? undefined : JSON.parse(body) };
}

/** RFC 3339 UTC in whole seconds, as the pages show timestamps. */
export const WHOLE_SECONDS_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
