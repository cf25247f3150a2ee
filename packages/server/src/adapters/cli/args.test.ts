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

  it('refuses bad values with the option named', () => {
    expect(() => parseCliArgs([], { LEASEHOLD_LOG_LEVEL: 'loud' })).toThrow(/--log-level must be one of/);
    expect(() => parseCliArgs(['--shutdown-delay', 'soon'], {})).toThrow(/--shutdown-delay/);
    expect(() => parseCliArgs([], { LEASEHOLD_CONTROL: 'yes' })).toThrow(/LEASEHOLD_CONTROL must be true or false/);
    expect(() => parseCliArgs([], { LEASEHOLD_PORT: '70000' })).toThrow(/--port/);
  });

  it('lists every variable in --help', () => {
    for (const env of Object.values(ENV_VARS)) expect(USAGE).toContain(env);
  });
});
