/**
 * The deployment files in deploy/ as the demo's replicas and the tests use them: the systemd
 * unit's command line and environment (every replica starts with exactly these), the nginx
 * config (the load balancer, only its ports changed), and a running nginx from it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** deploy/ and its files. */
export const DEPLOY = {
  systemd: join(ROOT, 'deploy/systemd/leasehold-server@.service'),
  kubernetes: join(ROOT, 'deploy/kubernetes/leasehold.yaml'),
  nginx: join(ROOT, 'deploy/nginx/leasehold.conf'),
  containerfile: join(ROOT, 'deploy/Containerfile'),
};

/** The unit's `[Service]` settings, in order (a key may repeat). */
export function unitSettings(text = readFileSync(DEPLOY.systemd, 'utf8')): [string, string][] {
  const out: [string, string][] = [];
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = header[1] as string;
      continue;
    }
    const at = line.indexOf('=');
    if (section === 'Service' && at > 0) out.push([line.slice(0, at), line.slice(at + 1)]);
  }
  return out;
}

/** What the unit runs for instance `%i`: the binary, its arguments and its `Environment=` lines. */
export function systemdLaunch(instance: string): { binary: string; args: string[]; env: Record<string, string> } {
  const settings = unitSettings();
  const expand = (value: string) => value.replaceAll('%i', instance);
  const execStart = settings.find(([key]) => key === 'ExecStart')?.[1];
  if (execStart === undefined) throw new Error('the unit has no ExecStart');
  const [binary, ...args] = expand(execStart).split(/\s+/);
  const env: Record<string, string> = {};
  for (const [key, value] of settings) {
    if (key !== 'Environment') continue;
    const at = value.indexOf('=');
    env[value.slice(0, at)] = expand(value.slice(at + 1));
  }
  return { binary: binary as string, args, env };
}

/** The CLI as the tests run it: `node --import tsx packages/server/src/cli.ts` (the unit's `/usr/bin/leasehold-server`). */
export const CLI = [process.execPath, '--import', 'tsx', join(ROOT, 'packages/server/src/cli.ts')] as const;

/**
 * Spawns one server process the way the systemd unit does for instance `port`: its ExecStart
 * arguments, its Environment lines, `LEASEHOLD_STORE` (the unit's EnvironmentFile) and `extraArgs`.
 */
export function spawnLikeSystemd(port: number, store: string, extraArgs: string[] = []): ChildProcess {
  const launch = systemdLaunch(String(port));
  const [node, ...pre] = CLI;
  return spawn(node, [...pre, ...launch.args, ...extraArgs], {
    cwd: ROOT,
    env: { ...process.env, ...launch.env, LEASEHOLD_STORE: store },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The nginx config of deploy/, listening on `listenPort` and balancing over `upstreamPorts` (only the ports change). */
export function nginxConfig(listenPort: number, upstreamPorts: readonly number[]): string {
  const text = readFileSync(DEPLOY.nginx, 'utf8');
  const upstreams = [...text.matchAll(/^\s*server 127\.0\.0\.1:(\d+)/gm)];
  if (upstreams.length !== upstreamPorts.length) throw new Error(`deploy/nginx/leasehold.conf has ${upstreams.length} upstreams, not ${upstreamPorts.length}`);
  let index = 0;
  const replaced = text.replace(/^(\s*server 127\.0\.0\.1:)(\d+)/gm, (_m, head: string) => `${head}${upstreamPorts[index++]}`);
  if (!/listen 127\.0\.0\.1:8080;/.test(replaced)) throw new Error('deploy/nginx/leasehold.conf must listen on 127.0.0.1:8080');
  return replaced.replace('listen 127.0.0.1:8080;', `listen 127.0.0.1:${listenPort};`);
}

/** Debian's nginx binary (scripts/install-nginx.sh installs it). */
export function nginxBinary(): string {
  for (const candidate of ['/usr/sbin/nginx', '/usr/bin/nginx']) if (existsSync(candidate)) return candidate;
  const which = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  const found = which.stdout.trim();
  if (which.status === 0 && found !== '') return found;
  throw new Error('nginx is missing: run scripts/install-nginx.sh (scripts/test.sh does)');
}

/** Writes `config` under `dir` (with nginx's temp folders) and answers the `-p`/`-c` arguments. */
export function nginxPrefix(dir: string, config: string): string[] {
  for (const sub of ['tmp/body', 'tmp/proxy', 'tmp/fastcgi', 'tmp/uwsgi', 'tmp/scgi', 'logs']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, 'leasehold.conf'), config);
  return ['-p', `${dir}/`, '-c', 'leasehold.conf', '-g', 'daemon off;'];
}

/** `nginx -t` of `config`: answers its exit status and output. */
export function nginxTest(dir: string, config: string): { status: number | null; output: string } {
  const run = spawnSync(nginxBinary(), [...nginxPrefix(dir, config), '-t'], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Starts nginx in the foreground on `config` (stop it with `kill('SIGQUIT')` or SIGTERM). */
export function startNginx(dir: string, config: string): ChildProcess {
  return spawn(nginxBinary(), nginxPrefix(dir, config), { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Waits for a child's `listening on http://…` line; answers the URL. */
export function listeningUrl(child: ChildProcess, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no listening line within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(match[1] as string);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before listening:\n${output}`));
    });
  });
}
