import { auditLines, until, watchdogActions, type Lab } from '../lab/index.js';

/**
 * Hosts out of rotation now: a drain marker in host.state, or a server not
 * UP on either HAProxy (the ELBv2 endpoint's group acts on lb-a, so a target
 * it still has deregistered shows there).
 */
export async function drainedHosts(lab: Lab): Promise<OutOfRotation[]> {
  const marker = `${lab.layout.paths.state}/draining`;
  const out: OutOfRotation[] = [];
  for (const h of lab.hosts) {
    const r = await lab.inHost(h, ['sh', '-c', `test -e ${marker} && echo marker; true`]);
    const statuses = await Promise.all(lab.haproxies.map((b) => b.serverStatus(h.name)));
    const down = lab.haproxies.filter((_, i) => statuses[i] !== 'UP').map((b) => b.name);
    const marked = r.stdout.includes('marker');
    if (marked || down.length > 0) out.push({ name: h.name, marker: marked, notUpOn: down });
  }
  return out;
}

export interface OutOfRotation {
  readonly name: string;
  /** its drain marker is there */
  readonly marker: boolean;
  /** the HAProxies that do not have it UP */
  readonly notUpOn: readonly string[];
}

/** `web-1 (marker; not UP on lb-a, lb-b)` */
export const formatOut = (h: OutOfRotation): string =>
  `${h.name} (${[h.marker ? 'marker' : '', h.notUpOn.length > 0 ? `not UP on ${h.notUpOn.join(', ')}` : ''].filter(Boolean).join('; ')})`;

/** drainedHosts once it is empty, or after `timeoutMs` (a check that is still rising settles first) */
export async function settledDrained(lab: Lab, timeoutMs: number): Promise<string[]> {
  let last: OutOfRotation[] = [];
  await until(async () => (last = await drainedHosts(lab)).length === 0, timeoutMs);
  return last.map(formatOut);
}

/**
 * Once the watchdog has finished what a killed rollout left on every host
 * still marked: the marker gone (drain.method health), or with drain.method
 * deregister, which it cannot register, the host left marked after a
 * `watchdog.heal check` that passed (docs/watchdog.md): the next rollout
 * repairs that one. Resolves with the hosts not yet healed, empty on success.
 */
export async function awaitHealed(lab: Lab, timeoutMs: number): Promise<string[]> {
  let waiting: OutOfRotation[] = [];
  const healed = async (h: OutOfRotation): Promise<boolean> => {
    if (!h.marker) return true;
    const host = lab.hosts.find((x) => x.name === h.name);
    if (!host) return false;
    return (await auditLines(lab, host))
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { step?: string; result?: string })
      .some((e) => e.step === 'watchdog.heal check' && e.result === 'ok');
  };
  const done = async () => {
    const marked = (await drainedHosts(lab)).filter((h) => h.marker);
    const states = await Promise.all(marked.map(healed));
    waiting = marked.filter((_, i) => !states[i]);
    return waiting.length === 0;
  };
  await until(done, timeoutMs);
  return waiting.map(formatOut);
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
