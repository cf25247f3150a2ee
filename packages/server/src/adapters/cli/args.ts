import { parseArgs } from 'node:util';
import { DEFAULT_BASE_PATHS, trimTrailingSlashes } from '@leasehold/protocol';

/** The CLI's help text. */
export const USAGE = `Usage: leasehold-server [options]
       leasehold-server migrate [--store <store>]

  --store <store>     where state lives: memory (default), a postgres:// URL, or a directory
                      (an embedded PostgreSQL); also LEASEHOLD_STORE
  --pool-size <n>     PostgreSQL connections in the pool (default 10)
  --statement-timeout <ms>  PostgreSQL statement timeout (default 5000)
  --port <n>          port to listen on (default 4010; 0 picks a free port)
  --host <addr>       address to bind (default 127.0.0.1)
  --keys <file>       JSON file of API keys (default: the demo keys)
  --base-path <path>  serve the API under this prefix; repeat for several (default: / and /api)
  --docs-url <url>    the API reference error doc_urls link to (default: <API base URL>/docs)
  --clock <mode>      real (default) or manual (moves only through /_control/clock/advance)
  --control           serve the /_control test operations (no API key; keep it on localhost)
  --help              show this help

  migrate             apply pending migrations to the store and exit (safe from several processes)
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
  help: boolean;
}

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer, got ${value}`);
  return n;
}

/** Parses the CLI flags (and `LEASEHOLD_STORE`); throws with a readable message on bad input. */
export function parseCliArgs(argv: string[], env: Record<string, string | undefined> = process.env): CliOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      store: { type: 'string' },
      'pool-size': { type: 'string' },
      'statement-timeout': { type: 'string' },
      port: { type: 'string', default: '4010' },
      host: { type: 'string', default: '127.0.0.1' },
      keys: { type: 'string' },
      'base-path': { type: 'string', multiple: true },
      'docs-url': { type: 'string' },
      clock: { type: 'string', default: 'real' },
      control: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 1 || (positionals[0] !== undefined && positionals[0] !== 'migrate')) {
    throw new Error(`unknown command ${positionals.join(' ')} (the only command is migrate)`);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0–65535, got ${values.port}`);
  if (values.clock !== 'real' && values.clock !== 'manual') throw new Error(`--clock must be real or manual, got ${values.clock}`);
  const basePaths = values['base-path'] ?? [...DEFAULT_BASE_PATHS];
  for (const basePath of basePaths) {
    if (!/^\/[A-Za-z0-9._~\-/]*$/.test(basePath)) throw new Error(`--base-path must start with / and hold only A–Z a–z 0–9 . _ ~ - /, got ${basePath}`);
  }
  const docsUrl = values['docs-url'];
  if (docsUrl !== undefined && !/^https?:\/\/[^\s#]+$/.test(docsUrl)) throw new Error(`--docs-url must be an http(s) URL without a fragment, got ${docsUrl}`);
  const store = values.store ?? env.LEASEHOLD_STORE ?? 'memory';
  if (store.trim() === '') throw new Error('--store must name memory, a postgres:// URL or a directory');
  return {
    command: positionals[0] === 'migrate' ? 'migrate' : 'serve',
    store,
    poolSize: positiveInteger('--pool-size', values['pool-size']),
    statementTimeoutMs: positiveInteger('--statement-timeout', values['statement-timeout']),
    port,
    host: values.host,
    keysFile: values.keys,
    basePaths,
    docsUrl: docsUrl === undefined ? undefined : trimTrailingSlashes(docsUrl),
    clock: values.clock,
    control: values.control,
    help: values.help,
  };
}
