import { describe, expect, it } from 'vitest';
import { ENV_VARS, parseCliArgs, USAGE } from './args.js';

describe('parseCliArgs', () => {
  it('reads every option from its LEASEHOLD_* environment variable when the flag is absent', () => {
    const options = parseCliArgs([], {
      LEASEHOLD_STORE: 'postgres://lh@db/lh',
      LEASEHOLD_POOL_SIZE: '20',
      LEASEHOLD_STATEMENT_TIMEOUT: '3000',
      LEASEHOLD_PORT: '8080',
      LEASEHOLD_HOST: '0.0.0.0',
      LEASEHOLD_KEYS: '/etc/leasehold/keys.json',
      LEASEHOLD_BASE_PATH: '/api, /v',
      LEASEHOLD_DOCS_URL: 'https://docs.example.com/lh',
      LEASEHOLD_CLOCK: 'manual',
      LEASEHOLD_CONTROL: 'true',
      LEASEHOLD_LOG_LEVEL: 'warn',
      LEASEHOLD_SHUTDOWN_DELAY: '5s',
    });
    expect(options).toMatchObject({
      store: 'postgres://lh@db/lh',
      poolSize: 20,
      statementTimeoutMs: 3000,
      port: 8080,
      host: '0.0.0.0',
      keysFile: '/etc/leasehold/keys.json',
      basePaths: ['/api', '/v'],
      docsUrl: 'https://docs.example.com/lh',
      clock: 'manual',
      control: true,
      logLevel: 'warn',
      shutdownDelayMs: 5000,
    });
  });

  it('lets a flag win over its variable, and treats an empty variable as unset', () => {
    const options = parseCliArgs(['--port', '0', '--log-level', 'silent'], { LEASEHOLD_PORT: '9', LEASEHOLD_LOG_LEVEL: 'debug', LEASEHOLD_HOST: '' });
    expect(options).toMatchObject({ port: 0, logLevel: 'silent', host: '127.0.0.1', shutdownDelayMs: 0, control: false });
  });

  it('refuses bad values naming the flag, or the variable when the value came from one', () => {
    expect(() => parseCliArgs([], { LEASEHOLD_LOG_LEVEL: 'loud' })).toThrow(/^LEASEHOLD_LOG_LEVEL must be one of/);
    expect(() => parseCliArgs(['--log-level', 'loud'], {})).toThrow(/^--log-level must be one of/);
    expect(() => parseCliArgs(['--shutdown-delay', 'soon'], {})).toThrow(/^--shutdown-delay/);
    expect(() => parseCliArgs([], { LEASEHOLD_CONTROL: 'yes' })).toThrow(/LEASEHOLD_CONTROL must be true or false/);
    expect(() => parseCliArgs([], { LEASEHOLD_PORT: 'abc' })).toThrow(/^LEASEHOLD_PORT must be a port number 0–65535, got abc$/);
    expect(() => parseCliArgs(['--port', '70000'], {})).toThrow(/^--port must be/);
    expect(() => parseCliArgs([], { LEASEHOLD_POOL_SIZE: '0' })).toThrow(/^LEASEHOLD_POOL_SIZE must be a positive integer/);
  });

  it('says unknown options and missing values in its own words, with the nearest option', () => {
    expect(() => parseCliArgs(['--bogus'], {})).toThrow(/^unknown option --bogus$/);
    expect(() => parseCliArgs(['--stor', 'x'], {})).toThrow(/^unknown option --stor \(did you mean --store\?\)$/);
    expect(() => parseCliArgs(['--port'], {})).toThrow(/^--port needs a value$/);
    expect(() => parseCliArgs(['--control=yes'], {})).toThrow(/^--control takes no value/);
    expect(() => parseCliArgs(['--bogus'], {})).not.toThrow(/positional|place it at the end/);
  });

  it('answers -h/--help and -v/--version whatever else is set, and skips the -- that pnpm passes', () => {
    expect(parseCliArgs(['-h'], { LEASEHOLD_PORT: 'abc' })).toMatchObject({ help: true });
    expect(parseCliArgs(['--', '--help'], {})).toMatchObject({ help: true });
    expect(parseCliArgs(['--version'], {})).toMatchObject({ version: true, help: false });
    expect(parseCliArgs(['-v'], {})).toMatchObject({ version: true });
    expect(USAGE).toMatch(/-h, --help/);
    expect(USAGE).toMatch(/-v, --version/);
  });

  it('lists every variable in --help', () => {
    for (const env of Object.values(ENV_VARS)) expect(USAGE).toContain(env);
  });
});
