import { DEFAULT_KEYS, type KeyConfig } from '../../engine/index.js';
import { createLeaseholdServer } from '../../leasehold-server.js';
import { createRequestLog } from './request-log.js';
import { ServerMetrics } from '../../metrics/server-metrics.js';
// Not through store/index.js, which re-exports the SQL store: the SQL store and its drivers load
// only when `openStore` opens one (a memory-store server never loads pg or PGlite).
import { StoreOpenError } from '../../store/errors.js';
import { migrateStore, openStore, redact } from '../../store/open-store.js';
import type { Store } from '../../store/operations.js';
import { maskKey, redactText } from '../../store/redact.js';
import { listen } from '../node-http/listen.js';
import { parseCliArgs, USAGE, type CliOptions } from './args.js';
import { CLIENT_REFERENCE, createSdkDocsLoader, PYTHON_REFERENCE } from './sdk-docs.js';
import { createDocsHtmlLoader } from './docs-html.js';
import { loadKeysFile } from './keys-file.js';
import { serverVersion } from './version.js';

/** How long the store may take to close after the grace period before the process exits anyway (ms). */
const STORE_CLOSE_MS = 1000;

const DEMO_KEYS = new Set(DEFAULT_KEYS.map((key) => key.apiKey));

/** A banner line for a key: the demo keys in full (they are public), any other masked (`maskKey`). */
function describeKey(key: KeyConfig): string {
  const permissions = key.permissions ? key.permissions.join(', ') : 'every permission';
  const spaces = key.spaces === undefined || key.spaces === '*' ? 'every space' : `${key.spaces.length} space(s)`;
  return `  ${DEMO_KEYS.has(key.apiKey) ? key.apiKey : maskKey(key.apiKey)}  account ${key.accountId}; ${permissions}; ${spaces}`;
}

function fail(message: string, code: number): void {
  process.stderr.write(`leasehold-server: ${redactText(message)}\n`);
  process.exitCode = code;
}

async function migrate(options: CliOptions): Promise<void> {
  const report = await migrateStore(options.store, { poolSize: options.poolSize, statementTimeoutMs: options.statementTimeoutMs });
  const applied = report.applied.length === 0 ? 'nothing to apply' : `applied ${report.applied.join(', ')}`;
  process.stdout.write(`leasehold-server migrate ${redact(options.store)}: ${applied}; schema at ${report.current.at(-1) ?? 'none (memory)'}\n`);
}

/** Runs the reference server until SIGINT or SIGTERM (then drains requests in flight and closes the store), or `migrate`. */
export async function main(argv: string[]): Promise<void> {
  let options: CliOptions;
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    process.stderr.write(`leasehold-server: ${redactText((error as Error).message)}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (options.version) {
    process.stdout.write(`leasehold-server ${serverVersion()}\n`);
    return;
  }
  const keys = options.keysFile ? loadKeysFile(options.keysFile) : DEFAULT_KEYS;
  const metrics = new ServerMetrics();
  let store: Store;
  try {
    if (options.command === 'migrate') return await migrate(options);
    store = await openStore(options.store, {
      clock: options.clock,
      keys,
      poolSize: options.poolSize,
      statementTimeoutMs: options.statementTimeoutMs,
      onQueryDone: metrics.observeStatement,
    });
  } catch (error) {
    if (error instanceof StoreOpenError) return fail(error.message, 1);
    throw error;
  }
  // Lines wait at most a turn; the log writes out what waits when the process exits.
  const log = createRequestLog({ level: options.logLevel });
  const server = createLeaseholdServer({
    store,
    metrics,
    observer: log.observer,
    basePath: options.basePaths,
    docsUrl: options.docsUrl,
    control: options.control,
    docsHtml: createDocsHtmlLoader(),
    clientDocs: createSdkDocsLoader(CLIENT_REFERENCE),
    pythonDocs: createSdkDocsLoader(PYTHON_REFERENCE),
  });
  const listener = await listen(server, { port: options.port, host: options.host });
  const bases = options.basePaths.map((basePath) => `${listener.url}${basePath.replace(/\/+$/, '')}`);
  const base = bases[0] as string;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const { shutdownDelayMs, shutdownGraceMs } = options;
    // Drain (docs/operating.md): /readyz answers 503 and every answer says `Connection: close`
    // for --shutdown-delay (load balancers take this process out, keep-alive clients reconnect
    // elsewhere; idle connections close now), then stop accepting, let requests in flight answer
    // for --shutdown-grace, cut what is still open, and close the store's pool.
    server.drain();
    listener.drain();
    log.logger.info({ signal, shutdownDelayMs, shutdownGraceMs }, 'draining');
    // The bound, whatever hangs below (a store that does not close): gone STORE_CLOSE_MS after the grace.
    setTimeout(() => {
      log.logger.error({ shutdownDelayMs, shutdownGraceMs }, 'shutdown did not finish within the grace period; exiting');
      process.exit(1);
    }, shutdownDelayMs + shutdownGraceMs + STORE_CLOSE_MS).unref();
    new Promise<void>((resolve) => setTimeout(resolve, shutdownDelayMs))
      .then(() => listener.close({ graceMs: shutdownGraceMs }))
      .then(({ cut }) => {
        if (cut > 0) log.logger.warn({ cut, shutdownGraceMs }, 'connections still open at the end of the grace period were cut');
        return server.close();
      })
      .then(
        () => {
          log.logger.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          log.logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  // Installed before the line that says it listens: a supervisor may signal as soon as it reads it.
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdout.write(
    [
      `Leasehold reference server listening on ${listener.url}`,
      `store: ${store.kind === 'memory' ? 'memory' : redact(options.store)} (${store.kind})`,
      `API keys accepted:`,
      ...keys.map(describeKey),
      `API base URL${bases.length > 1 ? 's' : ''}: ${bases.join('  ')}   spec: ${base}/openapi.json`,
      `API reference: ${base}/docs   SDK reference: ${base}/docs/client/   Python SDK reference: ${base}/docs/python/${options.docsUrl ? `; error doc_urls link to ${options.docsUrl}` : ''}`,
      `clock: ${options.clock}${options.control ? `; test controls at ${base}/_control` : ''}`,
      `health: ${listener.url}/healthz  readiness: ${listener.url}/readyz  metrics: ${listener.url}/metrics; request log: JSON lines at ${options.logLevel}`,
      '',
    ].join('\n'),
  );
}
