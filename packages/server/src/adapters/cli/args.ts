import { parseArgs } from 'node:util';
import { DEFAULT_BASE_PATHS, parseDuration, trimTrailingSlashes } from '@leasehold/protocol';

/** The log levels of `--log-level` (pino's, plus `silent`). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** One of `LOG_LEVELS`. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Every option of `leasehold-server` and the environment variable that sets it when the flag is
 * absent (a flag wins). The README's and docs/operating.md's tables list the same.
 */
export const ENV_VARS = {
  store: 'LEASEHOLD_STORE',
  'pool-size': 'LEASEHOLD_POOL_SIZE',
  'statement-timeout': 'LEASEHOLD_STATEMENT_TIMEOUT',
  port: 'LEASEHOLD_PORT',
  host: 'LEASEHOLD_HOST',
  keys: 'LEASEHOLD_KEYS',
  'base-path': 'LEASEHOLD_BASE_PATH',
  'docs-url': 'LEASEHOLD_DOCS_URL',
  clock: 'LEASEHOLD_CLOCK',
  control: 'LEASEHOLD_CONTROL',
  'log-level': 'LEASEHOLD_LOG_LEVEL',
  'shutdown-delay': 'LEASEHOLD_SHUTDOWN_DELAY',
  'shutdown-grace': 'LEASEHOLD_SHUTDOWN_GRACE',
} as const;

/** The CLI's help text. */
export const USAGE = `Usage: leasehold-server [options]
       leasehold-server migrate [--store <store>]

  --store <store>     where state lives: memory (default), a postgres:// URL, or a directory
                      written as a path: absolute, or starting with ./ ../ or ~/ (an embedded
                      PostgreSQL; one process at a time: it holds <dir>/leasehold.pid)
  --pool-size <n>     PostgreSQL connections in the pool (default 10)
  --statement-timeout <ms>  PostgreSQL statement timeout (default 5000)
  --port <n>          port to listen on (default 4010; 0 picks a free port)
  --host <addr>       address to bind (default 127.0.0.1)
  --keys <file>       JSON file of API keys (default: the demo keys)
  --base-path <path>  serve the API under this prefix; repeat for several (default: / and /api)
  --docs-url <url>    the API reference error doc_urls link to (default: <API base URL>/docs)
  --clock <mode>      real (default) or manual (moves only through /_control/clock/advance)
  --control           serve the /_control test operations (no API key; keep it on localhost)
  --log-level <level> JSON request logs on stdout at info: fatal, error, warn, info, debug,
                      trace or silent (default info)
  --shutdown-delay <duration>  on SIGTERM, answer /readyz 503 this long before closing the
                      listener, so load balancers stop routing here first (default 0; e.g. 5s)
  --shutdown-grace <duration>  after the delay, let requests in flight finish this long, then
                      cut the connections still open and exit (default 20s)
  -h, --help          show this help
  -v, --version       print the version

  migrate             apply pending migrations to the store and exit (safe from several processes)

Every option can also be set by an environment variable (the flag wins):
${Object.entries(ENV_VARS)
  .map(([flag, env]) => `  ${env.padEnd(28)} --${flag}${flag === 'base-path' ? ' (comma-separated)' : flag === 'control' ? ' (true or false)' : ''}`)
  .join('\n')}
`;

/** What the command line asks for. */
export interface CliOptions {
  command: 'serve' | 'migrate';
  store: string;
  poolSize: number | undefined;
  statementTimeoutMs: number | undefined;
  port: number;
  host: string;
  keysFile: string | undefined;
  basePaths: string[];
  docsUrl: string | undefined;
  clock: 'real' | 'manual';
  control: boolean;
  logLevel: LogLevel;
  shutdownDelayMs: number;
  /** After the delay, how long requests in flight may finish before their connections are cut. */
  shutdownGraceMs: number;
  help: boolean;
  version: boolean;
}

type Env = Record<string, string | undefined>;

const OPTIONS = {
  store: { type: 'string' },
  'pool-size': { type: 'string' },
  'statement-timeout': { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  keys: { type: 'string' },
  'base-path': { type: 'string', multiple: true },
  'docs-url': { type: 'string' },
  clock: { type: 'string' },
  control: { type: 'boolean' },
  'log-level': { type: 'string' },
  'shutdown-delay': { type: 'string' },
  'shutdown-grace': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'v', default: false },
} as const;

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** `parseArgs`'s errors in this CLI's words: the option, what is wrong, the nearest valid name. */
function usageError(error: unknown): Error {
  const { code, message } = error as { code?: string; message: string };
  const option = /'(-{1,2}[^' <]+)/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const name = option.replace(/^-+/, '').split('=')[0]!;
    const nearest = Object.keys(OPTIONS)
      .map((known) => [known, distance(name, known)] as const)
      .sort((a, b) => a[1] - b[1])[0]!;
    return new Error(`unknown option ${option}${nearest[1] <= Math.max(2, name.length / 3) ? ` (did you mean --${nearest[0]}?)` : ''}`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (/does not take an argument/.test(message)) return new Error(`${option} takes no value (a flag: present or absent)`);
    if (/argument missing/.test(message)) return new Error(`${option} needs a value`);
  }
  return new Error(message);
}

type Values = Record<string, unknown>;

/** How a message names where a value came from: the flag, or its environment variable when the flag is absent. */
function nameOf(values: Values, flag: keyof typeof ENV_VARS): string {
  return values[flag] === undefined ? ENV_VARS[flag] : `--${flag}`;
}

function positiveInteger(values: Values, env: Env, flag: 'pool-size' | 'statement-timeout'): number | undefined {
  const value = valueOf(values, env, flag);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${nameOf(values, flag)} must be a positive integer, got ${value}`);
  return n;
}

/** A flag's value, else its environment variable's (an empty variable counts as unset). */
function valueOf(values: Record<string, unknown>, env: Env, flag: keyof typeof ENV_VARS): string | undefined {
  const given = values[flag];
  if (typeof given === 'string') return given;
  const fromEnv = env[ENV_VARS[flag]];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

function booleanOf(values: Record<string, unknown>, env: Env, flag: 'control'): boolean {
  if (values[flag] === true) return true;
  const fromEnv = env[ENV_VARS[flag]];
  if (fromEnv === undefined || fromEnv === '') return false;
  if (fromEnv === 'true' || fromEnv === '1') return true;
  if (fromEnv === 'false' || fromEnv === '0') return false;
  throw new Error(`${ENV_VARS[flag]} must be true or false, got ${fromEnv}`);
}

/**
 * Parses the CLI flags and their `LEASEHOLD_*` environment variables; throws with a readable
 * message on bad input, naming the flag or the variable the value came from. A leading `--`
 * (what `pnpm start -- --help` passes) is skipped.
 */
export function parseCliArgs(argv: string[], env: Env = process.env): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({ args: argv[0] === '--' ? argv.slice(1) : argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError(error);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1 || (positionals[0] !== undefined && positionals[0] !== 'migrate')) {
    throw new Error(`unknown command ${positionals.join(' ')} (the only command is migrate)`);
  }
  const command = positionals[0] === 'migrate' ? 'migrate' : 'serve';
  const help = values.help === true;
  const version = values.version === true;
  // --help and --version answer whatever else is set (a bad variable must not hide the help).
  if (help || version) return { command, port: 4010, ...defaults(), help, version };
  return { command, ...validated(values, env), help, version };
}

type Validated = Omit<CliOptions, 'command' | 'help' | 'version'>;

function defaults(): Omit<Validated, 'port'> {
  return {
    store: 'memory',
    poolSize: undefined,
    statementTimeoutMs: undefined,
    host: '127.0.0.1',
    keysFile: undefined,
    basePaths: [...DEFAULT_BASE_PATHS],
    docsUrl: undefined,
    clock: 'real',
    control: false,
    logLevel: 'info',
    shutdownDelayMs: 0,
    shutdownGraceMs: 20_000,
  };
}

function validated(values: Values, env: Env): Validated {
  const rawPort = valueOf(values, env, 'port') ?? '4010';
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || rawPort.trim() === '') {
    throw new Error(`${nameOf(values, 'port')} must be a port number 0–65535, got ${rawPort}`);
  }
  const clock = valueOf(values, env, 'clock') ?? 'real';
  if (clock !== 'real' && clock !== 'manual') throw new Error(`${nameOf(values, 'clock')} must be real or manual, got ${clock}`);
  const envBasePaths = env[ENV_VARS['base-path']];
  const basePaths =
    (values['base-path'] as string[] | undefined) ??
    (envBasePaths ? envBasePaths.split(',').map((p) => p.trim()).filter((p) => p !== '') : [...DEFAULT_BASE_PATHS]);
  for (const basePath of basePaths) {
    if (!/^\/[A-Za-z0-9._~\-/]*$/.test(basePath)) {
      throw new Error(`${nameOf(values, 'base-path')} must start with / and hold only A–Z a–z 0–9 . _ ~ - /, got ${basePath}`);
    }
  }
  const docsUrl = valueOf(values, env, 'docs-url');
  if (docsUrl !== undefined && !/^https?:\/\/[^\s#]+$/.test(docsUrl)) throw new Error(`${nameOf(values, 'docs-url')} must be an http(s) URL without a fragment, got ${docsUrl}`);
  const store = valueOf(values, env, 'store') ?? 'memory';
  if (store.trim() === '') throw new Error(`${nameOf(values, 'store')} must name memory, a postgres:// URL or a directory`);
  const logLevel = valueOf(values, env, 'log-level') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new Error(`${nameOf(values, 'log-level')} must be one of ${LOG_LEVELS.join(', ')}, got ${logLevel}`);
  const rawDelay = valueOf(values, env, 'shutdown-delay') ?? '0';
  const delaySeconds = parseDuration(rawDelay, 'milliseconds');
  if (delaySeconds === undefined || delaySeconds > 600) {
    throw new Error(`${nameOf(values, 'shutdown-delay')} must be a duration up to 10m (e.g. 5s, 500ms, or ms), got ${rawDelay}`);
  }
  const rawGrace = valueOf(values, env, 'shutdown-grace') ?? '20s';
  const graceSeconds = parseDuration(rawGrace, 'milliseconds');
  if (graceSeconds === undefined || graceSeconds > 600) {
    throw new Error(`${nameOf(values, 'shutdown-grace')} must be a duration up to 10m (e.g. 20s, 500ms, or ms), got ${rawGrace}`);
  }
  return {
    port,
    store,
    poolSize: positiveInteger(values, env, 'pool-size'),
    statementTimeoutMs: positiveInteger(values, env, 'statement-timeout'),
    host: valueOf(values, env, 'host') ?? '127.0.0.1',
    keysFile: valueOf(values, env, 'keys'),
    basePaths,
    docsUrl: docsUrl === undefined ? undefined : trimTrailingSlashes(docsUrl),
    clock,
    control: booleanOf(values, env, 'control'),
    logLevel: logLevel as LogLevel,
    shutdownDelayMs: Math.round(delaySeconds * 1000),
    shutdownGraceMs: Math.round(graceSeconds * 1000),
  };
}
