import { readFile } from 'node:fs/promises';

/** The machine's CPU time so far, all cores together (`/proc/stat`'s `cpu` line, in ticks). */
export interface CpuTimes {
  readonly busy: number;
  readonly idle: number;
  /** time the hypervisor ran something else on this machine's CPUs */
  readonly steal: number;
}

/**
 * From `/proc/stat`'s first line: user nice system idle iowait irq softirq
 * steal (guest time is already in user). Undefined when the text has none.
 */
export function parseCpuTimes(text: string): CpuTimes | undefined {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return undefined;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] =
    line.trim().split(/\s+/).slice(1).map(Number);
  return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
}

export async function cpuTimes(): Promise<CpuTimes | undefined> {
  return parseCpuTimes(await readFile('/proc/stat', 'utf8').catch(() => ''));
}

/**
 * What the machine's CPUs did between two readings, as shares of the time:
 * a rollout measured while the machine had no CPU to spare (idle near 0, or
 * the hypervisor stealing it) is slower for reasons that are not its own.
 */
export function cpuShares(
  before: CpuTimes | undefined,
  after: CpuTimes | undefined,
): { busy: number; idle: number; steal: number } | undefined {
  if (!before || !after) return undefined;
  const busy = after.busy - before.busy;
  const idle = after.idle - before.idle;
  const steal = after.steal - before.steal;
  const total = busy + idle + steal;
  if (total <= 0) return undefined;
  return { busy: busy / total, idle: idle / total, steal: steal / total };
}

/** `busy 71 % · idle 27 % · steal 2 %` */
export function formatShares(s: ReturnType<typeof cpuShares>): string {
  if (!s) return 'not read';
  const pct = (n: number) => `${Math.round(n * 100)} %`;
  return `busy ${pct(s.busy)} · idle ${pct(s.idle)} · steal ${pct(s.steal)}`;
}
