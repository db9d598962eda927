import { until, watchdogActions, type Lab } from '../lab/index.js';

/**
 * Hosts out of rotation now: a drain marker in host.state, or a server not
 * UP on either HAProxy (the ELBv2 endpoint's group acts on lb-a, so a target
 * it still has deregistered shows there).
 */
export async function drainedHosts(lab: Lab): Promise<string[]> {
  const marker = `${lab.layout.paths.state}/draining`;
  const out: string[] = [];
  for (const h of lab.hosts) {
    const r = await lab.inHost(h, ['sh', '-c', `test -e ${marker} && echo marker; true`]);
    const statuses = await Promise.all(lab.haproxies.map((b) => b.serverStatus(h.name)));
    const down = lab.haproxies.filter((_, i) => statuses[i] !== 'UP').map((b) => b.name);
    if (r.stdout.includes('marker') || down.length > 0)
      out.push(
        `${h.name}${r.stdout.includes('marker') ? ' (marker)' : ''}${down.length > 0 ? ` (not UP on ${down.join(', ')})` : ''}`,
      );
  }
  return out;
}

/** drainedHosts once it is empty, or after `timeoutMs` (a check that is still rising settles first) */
export async function settledDrained(lab: Lab, timeoutMs: number): Promise<string[]> {
  let last: string[] = [];
  await until(async () => (last = await drainedHosts(lab)).length === 0, timeoutMs);
  return last;
}

/**
 * Once no host has a drain marker: the watchdog has finished what a killed
 * rollout left (after the marker's lease). With drain.method deregister it
 * cannot register the target again; the next rollout does. Resolves with the
 * hosts still marked, empty on success.
 */
export async function awaitNoMarkers(lab: Lab, timeoutMs: number): Promise<string[]> {
  let marked: string[] = [];
  await until(
    async () =>
      (marked = (await drainedHosts(lab)).filter((h) => h.includes('(marker)'))).length === 0,
    timeoutMs,
  );
  return marked;
}

export interface SoakWatchdog {
  /** `watchdog.restart <service>` audit lines (src/watchdog/restart-record.ts): one per restart */
  readonly restarts: readonly string[];
  /** `watchdog.heal …` audit lines: a host a killed rollout left, finished by its watchdog */
  readonly heals: readonly string[];
  /** the watchdogs' own lines saying they restart or gave up (WARN/ERROR, docs/watchdog.md) */
  readonly logLines: readonly string[];
}

/** What every host's watchdog did over the soak, from its audit lines and its output. */
export async function watchdogSummary(lab: Lab, outputs: readonly string[]): Promise<SoakWatchdog> {
  const lines = await watchdogActions(lab, outputs);
  const audit = lines.filter((l) => l.startsWith('{'));
  const step = (l: string): string => (JSON.parse(l) as { step?: string }).step ?? '';
  return {
    restarts: audit.filter((l) => step(l).startsWith('watchdog.restart ')),
    heals: audit.filter((l) => step(l).startsWith('watchdog.heal ')),
    logLines: lines.filter((l) => !l.startsWith('{')),
  };
}
