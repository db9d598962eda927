import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { healthBundlePath } from '../build.js';
import { inHost, type ExecResult } from './exec.js';
import type { LabHost } from './host.js';
import type { LabLayout } from './layout.js';
import { until } from './procs.js';

/** scripts/lab/services on this machine; the hosts see the same files (only mounts differ). */
export const servicesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'services');
export const SERVICE_FILES = ['app.mjs', 'worker.mjs', 'ctl.mjs'] as const;

/** The environment the demo services read; labConfig puts the same values in deploy.yml. */
export function serviceEnv(layout: LabLayout, release: string): Record<string, string> {
  return {
    RELEASE: release,
    STATE_DIR: layout.paths.state,
    BIND: layout.selfName,
    PORT: String(layout.appPort),
  };
}

function check(what: string, r: ExecResult): void {
  if (r.exitCode !== 0)
    throw new Error(`${what} failed (exit ${r.exitCode}): ${r.stderr || r.stdout}`);
}

export interface StageOptions {
  /** the release's readiness check fails: its /health answers 503 failing */
  readonly bad?: boolean;
  /** the release says it is this one in x-release, whatever RELEASE is */
  readonly claim?: string;
  /** the release's readiness fails for this long after it starts: a slow warm-up that verify waits out */
  readonly readyAfterMs?: number;
  /** the app ignores SIGTERM: a stop ends it only by SIGKILL after drain.stop_timeout */
  readonly ignoreSigterm?: boolean;
  /** /health passes while every real route answers 500 (a missing migration, a bad config value) */
  readonly routesFail?: boolean;
  /** this fraction of real requests answers 500 (background errors), e.g. 0.01 */
  readonly errorRate?: number;
}

/**
 * Creates `<host.root>/releases/<id>/` inside the host with the demo services
 * and the health library (dist/health.mjs, built by scripts/build.ts), the way
 * a build would ship them.
 */
export async function stageRelease(
  layout: LabLayout,
  host: LabHost,
  release: string,
  options: StageOptions = {},
): Promise<string> {
  const dir = path.posix.join(layout.paths.root, 'releases', release);
  check(`${host.name}: mkdir ${dir}`, await inHost(host, ['mkdir', '-p', dir]));
  const files = SERVICE_FILES.map((f) => path.join(servicesDir, f));
  check(`${host.name}: copy services`, await inHost(host, ['cp', ...files, dir]));
  check(
    `${host.name}: copy the health library (npm run build makes it)`,
    await inHost(host, ['cp', healthBundlePath, path.posix.join(dir, 'health.mjs')]),
  );
  if (options.bad)
    check(
      `${host.name}: mark bad`,
      await inHost(host, ['touch', path.posix.join(dir, 'BAD_HEALTH')]),
    );
  if (options.claim !== undefined)
    check(
      `${host.name}: claim ${options.claim}`,
      await inHost(host, [
        'sh',
        '-c',
        'printf "%s\\n" "$1" > "$2"',
        'claim',
        options.claim,
        path.posix.join(dir, 'CLAIM_RELEASE'),
      ]),
    );
  if (options.ignoreSigterm)
    check(
      `${host.name}: ignore SIGTERM`,
      await inHost(host, ['touch', path.posix.join(dir, 'IGNORE_SIGTERM')]),
    );
  if (options.routesFail)
    check(
      `${host.name}: routes fail`,
      await inHost(host, ['touch', path.posix.join(dir, 'ROUTES_FAIL')]),
    );
  if (options.errorRate !== undefined)
    check(
      `${host.name}: ${options.errorRate} of requests fail`,
      await inHost(host, [
        'sh',
        '-c',
        'printf "%s\\n" "$1" > "$2"',
        'error-rate',
        String(options.errorRate),
        path.posix.join(dir, 'ERROR_RATE'),
      ]),
    );
  if (options.readyAfterMs !== undefined)
    check(
      `${host.name}: ready after ${options.readyAfterMs} ms`,
      await inHost(host, [
        'sh',
        '-c',
        'printf "%s\\n" "$1" > "$2"',
        'ready-after',
        String(options.readyAfterMs),
        path.posix.join(dir, 'READY_AFTER_MS'),
      ]),
    );
  return dir;
}

/**
 * Start app and worker from `releaseDir` the way someone did before handoff
 * managed the host: `setsid node app.mjs &` in a shell, no pid file, no
 * `current`. Resolves once the app answers.
 */
export async function startByHand(
  layout: LabLayout,
  host: LabHost,
  releaseDir: string,
): Promise<void> {
  const env = serviceEnv(layout, path.posix.basename(releaseDir));
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  for (const service of ['app', 'worker']) {
    const log = path.posix.join(layout.paths.state, `${service}.by-hand.log`);
    check(
      `${host.name}: start ${service} by hand`,
      await inHost(
        host,
        [
          'sh',
          '-c',
          'cd "$1" && shift && env "$@" setsid node "./$SERVICE.mjs" >"$LOG" 2>&1 </dev/null &',
          'by-hand',
          releaseDir,
          ...assignments,
        ],
        { env: { SERVICE: service, LOG: log } },
      ),
    );
  }
  await waitForApp(layout, host);
}

async function waitForApp(layout: LabLayout, host: LabHost): Promise<void> {
  const url = `http://${host.address}:${layout.appPort}/health`;
  const answering = await until(async () => (await httpStatus(url)) > 0, 10_000);
  if (!answering) throw new Error(`${host.name}: the app never answered ${url}`);
}

function ctl(
  layout: LabLayout,
  host: LabHost,
  releaseDir: string,
  action: string,
  service: string,
): Promise<ExecResult> {
  const env = serviceEnv(layout, path.posix.basename(releaseDir));
  const argv = ['env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath];
  return inHost(host, [...argv, path.posix.join(releaseDir, 'ctl.mjs'), action, service]);
}

/**
 * A test aid until `deploy setup`/`rollout` exist: start app and worker from
 * `releaseDir` inside the host, and wait until the app answers /health.
 */
export async function startServicesDirectly(
  layout: LabLayout,
  host: LabHost,
  releaseDir: string,
): Promise<void> {
  for (const service of ['app', 'worker']) {
    check(`${host.name}: start ${service}`, await ctl(layout, host, releaseDir, 'start', service));
  }
  await waitForApp(layout, host);
}

export async function stopServicesDirectly(
  layout: LabLayout,
  host: LabHost,
  releaseDir: string,
): Promise<void> {
  for (const service of ['app', 'worker']) {
    check(`${host.name}: stop ${service}`, await ctl(layout, host, releaseDir, 'stop', service));
  }
}

/** The status of one GET on a fresh connection, or 0 when nothing answered. */
export function httpStatus(url: string, timeoutMs = 1000): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}
