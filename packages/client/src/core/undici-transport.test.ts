import { Agent, MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { AbortError, ConnectionError } from './connection-errors.js';
import { hang, json, startTestHttpServer, type TestHttpServer } from './test-http-server.js';
import { UndiciTransport } from './undici-transport.js';

let server: TestHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('UndiciTransport', () => {
  it('sends and returns status, lowercase headers, body text; keeps the connection alive', async () => {
    server = await startTestHttpServer([json(200, { n: 1 }, { 'X-Thing': 'yes' })]);
    const transport = new UndiciTransport();
    try {
      const a = await transport.send({ method: 'PUT', url: `${server.url}/v1/a`, headers: { 'Content-Type': 'application/json' }, body: '{"x":1}' });
      await transport.send({ method: 'GET', url: `${server.url}/v1/b`, headers: {} });
      expect(a).toMatchObject({ status: 200, bodyText: '{"n":1}' });
      expect(a.headers['x-thing']).toBe('yes');
      expect(server.seen[0]).toMatchObject({ method: 'PUT', url: '/v1/a', body: '{"x":1}' });
      expect(server.seen[1]?.headers.connection).toBe('keep-alive');
    } finally {
      await transport.close();
    }
  });

  it('uses a caller dispatcher and never closes it', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    mock.get('https://api.leasehold.test').intercept({ path: '/v1/x', method: 'GET' }).reply(503, 'upstream down', { headers: { 'retry-after': '1' } }).times(2);
    const transport = new UndiciTransport({ dispatcher: mock });
    expect(await transport.send({ method: 'GET', url: 'https://api.leasehold.test/v1/x', headers: {} })).toMatchObject({ status: 503, bodyText: 'upstream down', headers: { 'retry-after': '1' } });
    await transport.close();
    expect((await transport.send({ method: 'GET', url: 'https://api.leasehold.test/v1/x', headers: {} })).status).toBe(503);
    await mock.close();
  });

  it('close() closes the agent it created', async () => {
    server = await startTestHttpServer([json(200, {})]);
    const transport = new UndiciTransport();
    await transport.send({ method: 'GET', url: server.url, headers: {} });
    await transport.close();
    await expect(transport.send({ method: 'GET', url: server.url, headers: {} })).rejects.toBeInstanceOf(ConnectionError);
  });

  it('connection refused → ConnectionError; abort → AbortError', async () => {
    server = await startTestHttpServer([hang]);
    const agent = new Agent();
    const transport = new UndiciTransport({ dispatcher: agent });
    const controller = new AbortController();
    const pending = transport.send({ method: 'GET', url: server.url, headers: {}, signal: controller.signal });
    await server.arrived(1);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    const url = server.url;
    await server.close();
    server = undefined;
    await expect(transport.send({ method: 'GET', url, headers: {} })).rejects.toBeInstanceOf(ConnectionError);
    await agent.close();
  });
});
