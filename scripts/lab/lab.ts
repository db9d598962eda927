import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { startElbv2Endpoint, type Elbv2Endpoint } from './elbv2/endpoint.js';
import { removeContainers, startEngines } from './compose.js';
import { haproxyInstances, startHaproxy } from './haproxy.js';
import { startHost, type LabHost } from './host.js';
import { startNginx } from './nginx.js';
import { labApi, type Lab } from './lab-api.js';
import { labFiles, labLayout, sshHosts, type LabHostPlan, type LayoutOptions } from './layout.js';
import { ensurePackages } from './packages.js';
import {
  commandLineOf,
  isAlive,
  isPinned,
  killGroup,
  killGroupSync,
  killNamespace,
  killNamespaceSync,
  namespaceMounts,
} from './procs.js';
import { writeSshFiles } from './sshd.js';
import { clearState, readState, writeState, type LabState } from './state.js';

export interface LabOptions extends LayoutOptions {
  /** tear down on SIGINT/SIGTERM and on process exit; default true */
  readonly handleSignals?: boolean;
  /** progress lines (the CLI prints them) */
  readonly report?: (line: string) => void;
}

/** Kill whatever a previous run left behind, by its state file. Safe when nothing is there. */
export async function cleanLeftovers(workDir: string): Promise<string[]> {
  const state = readState(workDir);
  if (!state) return [];
  const cleaned: string[] = [];
  // containers live in namespaces of their own: they would outlive the hosts'
  if (state.compose) {
    const layout = labLayout({ workDir, runtime: 'compose' });
    const alive = state.hosts.filter((h) => !h.balancer && isAlive(h.pid));
    await removeContainers(
      layout,
      alive.map((h) => ({ ...h, address: '', sshPort: 0 })),
    );
  }
  const files = labFiles(workDir);
  for (const h of state.hosts) {
    // not pinned here (a crashed run's): only when it is still that host's namespace
    const ours =
      isPinned(h.mountNamespace) ||
      namespaceMounts(h.mountNamespace, path.join(files.hostDir(h.name), 'hosts'));
    if (!ours) continue;
    await killNamespace(h.mountNamespace);
    cleaned.push(h.name);
  }
  // a recorded pid may have been recycled (pids wrap at 32768 within one e2e run): only
  // kill a haproxy of this lab, which names its config under the work dir
  for (const pid of [state.haproxyPid, ...(state.haproxyPids ?? [])]) {
    if (!pid || !isAlive(pid) || !isLabHaproxy(pid, workDir)) continue;
    await killGroup(pid);
    if (!cleaned.includes('haproxy')) cleaned.push('haproxy');
  }
  const nginx = state.nginxPid;
  if (nginx && isAlive(nginx) && isLabNginx(nginx, workDir)) {
    await killGroup(nginx);
    cleaned.push('nginx');
  }
  clearState(workDir);
  return cleaned;
}

function isLabNginx(pid: number, workDir: string): boolean {
  const argv = commandLineOf(pid);
  return argv.startsWith('nginx') && argv.includes(`${workDir}/`);
}

function isLabHaproxy(pid: number, workDir: string): boolean {
  const argv = commandLineOf(pid);
  return argv.startsWith('haproxy ') && argv.includes(`${workDir}/`);
}

function cleanLeftoversSync(state: LabState, workDir: string): void {
  // only this process's hosts, which it pinned: their ids cannot have been reused
  for (const h of state.hosts) if (isPinned(h.mountNamespace)) killNamespaceSync(h.mountNamespace);
  for (const pid of [state.haproxyPid, ...(state.haproxyPids ?? [])])
    if (pid && isLabHaproxy(pid, workDir)) killGroupSync(pid);
  if (state.nginxPid && isLabNginx(state.nginxPid, workDir)) killGroupSync(state.nginxPid);
}

export async function startLab(options: LabOptions = {}): Promise<Lab> {
  const layout = labLayout(options);
  const report = options.report ?? (() => undefined);
  await ensurePackages(report);
  const previous = readState(layout.workDir);
  if (previous && previous.ownerPid !== process.pid && isAlive(previous.ownerPid)) {
    // its owner still runs (another terminal, another test run): do not pull the lab from under it
    throw new Error(
      `a lab in ${layout.workDir} is owned by running pid ${previous.ownerPid}; stop it, or run 'node --import tsx scripts/lab/cli.ts down'`,
    );
  }
  const leftovers = await cleanLeftovers(layout.workDir);
  if (leftovers.length > 0) report(`cleaned up a previous lab: ${leftovers.join(', ')}`);
  const files = labFiles(layout.workDir);
  for (const h of sshHosts(layout)) {
    await mkdir(files.hostDir(h.name), { recursive: true });
    for (const [from] of h.binds ?? []) await mkdir(from, { recursive: true });
  }
  await writeSshFiles(layout);

  const state: LabState = { startedAt: new Date().toISOString(), ownerPid: process.pid, hosts: [] };
  writeState(layout.workDir, state);
  let stopped = false;
  const onExit = (): void => {
    if (!stopped) cleanLeftoversSync(state, layout.workDir);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    onExit();
    stopped = true;
    clearState(layout.workDir);
    detach();
    process.kill(process.pid, signal);
  };
  const detach = (): void => {
    process.off('exit', onExit);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  if (options.handleSignals ?? true) {
    process.on('exit', onExit);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }

  let elbv2: Elbv2Endpoint | undefined;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    detach();
    await elbv2?.close();
    await cleanLeftovers(layout.workDir);
  };

  const remember = (pid: number): void => {
    state.haproxyPids = [...(state.haproxyPids ?? []), pid];
    writeState(layout.workDir, state);
  };
  const hosts: LabHost[] = [];
  const startOne = (plan: LabHostPlan, balancer = false): Promise<LabHost> =>
    startHost(layout, plan, (h) => {
      const { name, pid, mountNamespace } = h;
      state.hosts.push({ name, pid, mountNamespace, ...(balancer && { balancer: true as const }) });
      writeState(layout.workDir, state);
    });
  let lbHost: LabHost | undefined;
  try {
    for (const plan of layout.hosts) {
      report(`starting ${plan.name} on ${plan.address}:${plan.sshPort}`);
      hosts.push(await startOne(plan));
    }
    if (layout.pair) {
      const plan = layout.pair.host;
      report(
        `starting ${plan.name}, the pair's second balancer host, on ${plan.address}:${plan.sshPort}`,
      );
      lbHost = await startOne(plan, true);
    }
    if (layout.runtime === 'compose') {
      state.compose = true;
      writeState(layout.workDir, state);
      await startEngines(layout, hosts, () => undefined, report);
    }
    const [first, second] = haproxyInstances(layout);
    report(`starting haproxy on ${layout.frontend.address}:${layout.frontend.port}`);
    await startHaproxy(
      layout,
      (pid) => {
        state.haproxyPid = pid;
        writeState(layout.workDir, state);
      },
      first,
    );
    if (second) {
      report(
        `starting the pair's second haproxy on ${second.frontend.address}:${second.frontend.port}, on ${second.host?.name ?? 'this machine'}`,
      );
      await startHaproxy(layout, remember, second, lbHost);
    }
    if (layout.balancer === 'nginx') {
      report('starting nginx (the upstream file handoff edits, and its main config)');
      await startNginx(layout, (pid) => {
        state.nginxPid = pid;
        writeState(layout.workDir, state);
      });
    }
    if (layout.balancer === 'alb') {
      elbv2 = await startElbv2Endpoint(layout, {
        ...(layout.loadBalancerType && { type: layout.loadBalancerType }),
      });
      report(`ELBv2 endpoint on ${elbv2.url} (target group ${elbv2.group.arn})`);
    }
  } catch (e) {
    await stop();
    throw e;
  }

  return labApi(layout, hosts, stop, { elbv2, lbHost, onHaproxy: remember });
}
