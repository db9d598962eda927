import { cp, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../src/config/parse.js';
import { toHostJson } from '../../src/config/serialize.js';
import type { Config } from '../../src/config/types.js';
import { publishRelease, switchRelease } from '../../src/host/releases.js';
import { createRuntime } from '../../src/host/runtime/create.js';
import { runtimeSettings } from '../../src/host/runtime/runtime.js';
import { freePort } from '../../test/support/host-fixture.js';

const httpService = fileURLToPath(
  new URL('../../test/support/services/http-service.mjs', import.meta.url),
);

export interface WatchdogHost {
  readonly dir: string;
  /** the agent as `deploy setup` installs it: `host.agent/bin/deploy` */
  readonly agent: string;
  /** the host config as `deploy setup` publishes it (what cron's watchdog reads) */
  readonly hostConfig: string;
  readonly config: Config;
  stop(): Promise<void>;
}

function serviceYaml(name: string, port: number): string {
  const pidFile = '"$HANDOFF_STATE/$HANDOFF_SERVICE.pid"';
  return `
  - name: ${name}
    check: { http: "http://127.0.0.1:${port}/health", timeout: 1s }
    start: 'PORT=${port} node ${httpService} >/dev/null 2>&1 &'
    stop: 'p=$(cat ${pidFile} 2>/dev/null) || exit 0; kill $p 2>/dev/null; while kill -0 $p 2>/dev/null; do sleep 0.05; done; rm -f ${pidFile}'
    status: 'kill -0 $(cat ${pidFile} 2>/dev/null) 2>/dev/null'`;
}

async function healthy(port: number, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const status = await fetch(`http://127.0.0.1:${port}/health`)
      .then((r) => r.status)
      .catch(() => 0);
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the bench service on port ${port} did not become healthy`);
}

/**
 * A host in a temp directory with three real HTTP services run by the command
 * runtime, release r1 live, no drain marker, and the agent installed where
 * setup puts it: a watchdog tick here does all the work a healthy host's does.
 */
export async function watchdogHost(agentBundle: string): Promise<WatchdogHost> {
  const dir = await mkdtemp(path.join(tmpdir(), 'handoff-bench-watchdog-'));
  await mkdir(path.join(dir, 'state'), { recursive: true });
  const ports = [await freePort(), await freePort(), await freePort()];
  const yaml = `
service: bench
ssh: { user: root, known_hosts: /dev/null }
hosts: [{ name: local, address: 127.0.0.1 }]
balancer: { kind: static, interval: 1s, timeout: 500ms, unhealthy_threshold: 2, healthy_threshold: 2 }
drain: { overlap: 1s, max_request: 2s, stop_timeout: 5s }
host: { root: ${dir}/root, lock: ${dir}/lock/bench, state: ${dir}/state, agent: ${dir}/agent }
runtime: { kind: command }
services:${ports.map((p, i) => serviceYaml(`svc-${i + 1}`, p)).join('')}
watchdog: { every: 60s, failures_before_restart: 4, successes_before_healthy: 2, start_period: 1s, max_restarts: 3, restart_window: 30m }
`;
  const config = parseConfig(yaml, path.join(dir, 'deploy.yml'));
  await publishRelease(config.host.root, 'r1', { '.env': 'RELEASE=r1\n' });
  await switchRelease(config.host.root, 'r1');
  const runtime = createRuntime(runtimeSettings(config), 'r1');
  const stop = async (): Promise<void> => {
    await runtime.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await runtime.start();
    const deadline = Date.now() + 15_000;
    for (const port of ports) await healthy(port, deadline);
    const agent = path.join(dir, 'agent', 'bin', 'deploy');
    // as setup installs it: the agent, and the library files beside it
    await cp(path.dirname(agentBundle), path.dirname(agent), { recursive: true });
    await rename(path.join(path.dirname(agent), path.basename(agentBundle)), agent);
    const hostConfig = path.join(dir, 'bench.json');
    await writeFile(hostConfig, toHostJson(config));
    return { dir, agent, hostConfig, config, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
