import { parseArgs } from 'node:util';
import { createLeaseholdServer } from '../leasehold-server.js';
import { loadKeysFile } from '../keys-file.js';
import { createDocsHtmlLoader } from './docs-html.js';
import { DEFAULT_KEYS, type KeyConfig } from '../engine/index.js';
import { DEFAULT_BASE_PATHS } from '@leasehold/protocol';

const USAGE = `Usage: leasehold-server [options]

  --port <n>          port to listen on (default 4010; 0 picks a free port)
  --host <addr>       address to bind (default 127.0.0.1)
  --keys <file>       JSON file of API keys (default: the demo keys)
  --base-path <path>  serve the API under this prefix; repeat for several (default: / and /api)
  --docs-url <url>    the API reference error doc_urls link to (default: <API base URL>/docs)
  --clock <mode>      real (default) or manual (moves only through /_control/clock/advance)
  --control           serve the /_control test operations (no API key; keep it on localhost)
  --help              show this help
`;

/** Parses the CLI flags; throws with a readable message on bad input. */
export function parseCliArgs(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '4010' },
      host: { type: 'string', default: '127.0.0.1' },
      keys: { type: 'string' },
      'base-path': { type: 'string', multiple: true },
      'docs-url': { type: 'string' },
      clock: { type: 'string', default: 'real' },
      control: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0–65535, got ${values.port}`);
  if (values.clock !== 'real' && values.clock !== 'manual') throw new Error(`--clock must be real or manual, got ${values.clock}`);
  const basePaths = values['base-path'] ?? [...DEFAULT_BASE_PATHS];
  for (const basePath of basePaths) {
    if (!/^\/[A-Za-z0-9._~\-/]*$/.test(basePath)) throw new Error(`--base-path must start with / and hold only A–Z a–z 0–9 . _ ~ - /, got ${basePath}`);
  }
  const docsUrl = values['docs-url'];
  if (docsUrl !== undefined && !/^https?:\/\/[^\s#]+$/.test(docsUrl)) throw new Error(`--docs-url must be an http(s) URL without a fragment, got ${docsUrl}`);
  return {
    port,
    host: values.host,
    keysFile: values.keys,
    basePaths,
    docsUrl: docsUrl?.replace(/\/+$/, ''),
    clock: values.clock,
    control: values.control,
    help: values.help,
  };
}

function describeKey(key: KeyConfig): string {
  const permissions = key.permissions ? key.permissions.join(', ') : 'every permission';
  const spaces = key.spaces === undefined || key.spaces === '*' ? 'every space' : `${key.spaces.length} space(s)`;
  return `  ${key.apiKey}  account ${key.accountId}; ${permissions}; ${spaces}`;
}

/** Runs the reference server until SIGINT or SIGTERM. */
export async function main(argv: string[]): Promise<void> {
  let options: ReturnType<typeof parseCliArgs>;
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    process.stderr.write(`leasehold-server: ${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return;
  }
  const keys = options.keysFile ? loadKeysFile(options.keysFile) : DEFAULT_KEYS;
  const server = createLeaseholdServer({
    keys,
    basePath: options.basePaths,
    docsUrl: options.docsUrl,
    clock: options.clock as 'real' | 'manual',
    control: options.control,
    docsHtml: createDocsHtmlLoader(),
  });
  const listener = await server.listen({ port: options.port, host: options.host });
  const bases = options.basePaths.map((basePath) => `${listener.url}${basePath.replace(/\/+$/, '')}`);
  const base = bases[0] as string;
  process.stdout.write(
    [
      `Leasehold reference server listening on ${listener.url}`,
      `API keys accepted:`,
      ...keys.map(describeKey),
      `API base URL${bases.length > 1 ? 's' : ''}: ${bases.join('  ')}   spec: ${base}/openapi.json`,
      `API reference: ${base}/docs${options.docsUrl ? `; error doc_urls link to ${options.docsUrl}` : ''}`,
      `clock: ${options.clock}${options.control ? `; test controls at ${base}/_control` : ''}`,
      '',
    ].join('\n'),
  );
  const stop = () => {
    listener.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
