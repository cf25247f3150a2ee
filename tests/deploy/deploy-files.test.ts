/**
 * deploy/ is checked where it can be here: the systemd unit's command line and environment
 * parse as the CLI's and start a server (the chaos test starts its servers the same way); the
 * Kubernetes probes hit paths that answer 200 on that server, on the port the env names; the
 * Containerfile runs the package's bin with known variables and probes /healthz; nginx accepts
 * the config (`nginx -t`), which is the one the chaos test runs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ENV_VARS, parseCliArgs } from '../../packages/server/src/adapters/cli/args.js';
import { DEPLOY, ROOT, listeningUrl, nginxConfig, nginxTest, spawnLikeSystemd, systemdLaunch, unitSettings } from '../support/deploy-files.js';

const KNOWN_ENV = new Set<string>([...Object.values(ENV_VARS), 'NODE_ENV']);
const serverBin = Object.keys((JSON.parse(readFileSync(join(ROOT, 'packages/server/package.json'), 'utf8')) as { bin: Record<string, string> }).bin);

interface Container {
  args?: string[];
  ports: { name: string; containerPort: number }[];
  env: { name: string; value?: string }[];
  readinessProbe: { httpGet: { path: string; port: string } };
  livenessProbe: { httpGet: { path: string; port: string } };
  startupProbe?: { httpGet: { path: string; port: string } };
}

const manifests = parseAllDocuments(readFileSync(DEPLOY.kubernetes, 'utf8')).map((doc) => doc.toJS() as Record<string, unknown>);
const deployment = manifests.find((m) => m.kind === 'Deployment') as { spec: { template: { spec: { containers: Container[] } } } };
const container = deployment.spec.template.spec.containers[0] as Container;

describe('deploy/systemd/leasehold-server@.service', () => {
  it('runs the package bin with arguments and Environment lines the CLI accepts, the instance as the port', () => {
    const launch = systemdLaunch('4011');
    expect(launch.binary).toBe(`/usr/bin/${serverBin[0]}`);
    for (const name of Object.keys(launch.env)) expect(KNOWN_ENV, name).toContain(name);
    const options = parseCliArgs(launch.args, { ...launch.env, LEASEHOLD_STORE: 'postgres://leasehold@db/leasehold' });
    expect(options).toMatchObject({ port: 4011, host: '127.0.0.1', command: 'serve' });
    expect(unitSettings().find(([key]) => key === 'KillSignal')?.[1]).toBe('SIGTERM');
  });
});

describe('deploy/kubernetes/leasehold.yaml', () => {
  let child: ReturnType<typeof spawnLikeSystemd> | undefined;
  let url = '';

  beforeAll(async () => {
    // A server started as the unit starts it (port 0: any free one), probed as Kubernetes would.
    child = spawnLikeSystemd(0, 'memory');
    url = await listeningUrl(child);
  }, 30_000);
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('has a Deployment and a Service, with arguments and env the CLI accepts', () => {
    expect(manifests.map((m) => m.kind)).toEqual(['Deployment', 'Service']);
    const env = Object.fromEntries(container.env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value as string]));
    for (const { name } of container.env) expect(KNOWN_ENV, name).toContain(name);
    const options = parseCliArgs(container.args ?? [], { ...env, LEASEHOLD_STORE: 'postgres://leasehold@db/leasehold' });
    const http = container.ports.find((p) => p.name === 'http');
    expect(options.port).toBe(http?.containerPort);
    expect(options.host).toBe('0.0.0.0');
    expect(options.shutdownDelayMs).toBeGreaterThan(0);
  });

  it('probes paths that answer 200 on a running server, on the named port', async () => {
    const probes = [container.readinessProbe, container.livenessProbe, container.startupProbe].filter((p) => p !== undefined);
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    for (const probe of probes) {
      expect(probe.httpGet.port).toBe('http');
      const response = await fetch(`${url}${probe.httpGet.path}`);
      expect(response.status, probe.httpGet.path).toBe(200);
    }
  });
});

describe('deploy/Containerfile', () => {
  const text = readFileSync(DEPLOY.containerfile, 'utf8');

  it('runs the package bin, with known variables, the port it exposes and a /healthz check', () => {
    expect(text).toMatch(new RegExp(`^ENTRYPOINT \\["${serverBin[0]}"\\]$`, 'm'));
    const envBlock = /^ENV ([\s\S]*?)\n(?!\s)/m.exec(text)?.[1] ?? '';
    const env = Object.fromEntries([...envBlock.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1] as string, m[2] as string]));
    for (const name of Object.keys(env)) expect(KNOWN_ENV, name).toContain(name);
    const options = parseCliArgs([], env);
    expect(text).toMatch(new RegExp(`^EXPOSE ${options.port}$`, 'm'));
    expect(options.host).toBe('0.0.0.0');
    expect(text).toContain(`http://127.0.0.1:${options.port}/healthz`);
    expect(text).toMatch(/^STOPSIGNAL SIGTERM$/m);
  });
});

describe('deploy/nginx/leasehold.conf', () => {
  it('passes nginx -t with the ports the chaos test gives it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lh-nginx-'));
    try {
      const result = nginxTest(dir, nginxConfig(18080, [14011, 14012, 14013]));
      expect(result.status, result.output).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
