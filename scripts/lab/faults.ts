import { execa } from 'execa';

/**
 * Network faults between the lab's loopback addresses: a chain of iptables
 * rules per lab subnet (`127.0.135.0/24` → `HANDOFF-127-0-135`), hooked into
 * OUTPUT for packets to and from that subnet only, so a lab on another subnet
 * (CI runs e2e files in parallel) never sees them. Every packet on loopback
 * passes OUTPUT once, so dropping there cuts both directions of a pair.
 *
 * drop    a partition: packets vanish, a connection attempt waits for its timeout
 * reject  the peer is down: a TCP reset / port unreachable at once
 * loss    each packet dropped with a probability (iptables' statistic match)
 * heal    every fault of the subnet removed
 *
 * Latency is not here: netem (`tc qdisc … netem`) is missing from kernels the
 * lab runs on, so a delay goes through a TCP proxy instead
 * (scripts/lab/delay-proxy.ts), the same on every machine.
 */

export type FaultKind = 'drop' | 'reject' | 'loss';

export interface Fault {
  readonly kind: FaultKind;
  /** the lab address cut off */
  readonly address: string;
  /** only from / to this peer (the orchestrator, the balancer, etcd); absent: everyone */
  readonly peer?: string;
  /** only these TCP ports on `address` (22: SSH only) */
  readonly ports?: readonly number[];
  /** loss: the share of packets dropped, 0 … 1 */
  readonly probability?: number;
}

const IPTABLES = ['iptables', '-w', '5'];

/** `127.0.135` → `HANDOFF-127-0-135`: one chain per lab subnet. */
export function chainName(subnet: string): string {
  if (!/^\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(subnet))
    throw new Error(`lab subnet ${JSON.stringify(subnet)}: expected three octets like 127.0.135`);
  return `HANDOFF-${subnet.replaceAll('.', '-')}`;
}

/** The chain, empty, and the two hooks that send the subnet's packets through it. */
export function setupArgvs(subnet: string): string[][] {
  const chain = chainName(subnet);
  return [
    [...IPTABLES, '-N', chain],
    [...IPTABLES, '-I', 'OUTPUT', '-d', `${subnet}.0/24`, '-j', chain],
    [...IPTABLES, '-I', 'OUTPUT', '-s', `${subnet}.0/24`, '-j', chain],
  ];
}

/** Everything setup made, removed (each may fail when it is already gone). */
export function teardownArgvs(subnet: string): string[][] {
  const chain = chainName(subnet);
  return [
    [...IPTABLES, '-D', 'OUTPUT', '-d', `${subnet}.0/24`, '-j', chain],
    [...IPTABLES, '-D', 'OUTPUT', '-s', `${subnet}.0/24`, '-j', chain],
    [...IPTABLES, '-F', chain],
    [...IPTABLES, '-X', chain],
  ];
}

export function healArgvs(subnet: string): string[][] {
  return [[...IPTABLES, '-F', chainName(subnet)]];
}

/** The rules of one fault: both directions, each port. */
export function faultArgvs(subnet: string, fault: Fault): string[][] {
  const chain = chainName(subnet);
  if (!fault.address.startsWith(`${subnet}.`))
    throw new Error(`fault on ${fault.address}: not in the lab subnet ${subnet}.0/24`);
  const target = targetOf(fault);
  const ports = fault.ports ?? [];
  const directions: string[][] = [
    // to the address (its listening ports), and its answers back
    ['-d', fault.address, ...(fault.peer ? ['-s', fault.peer] : [])],
    ['-s', fault.address, ...(fault.peer ? ['-d', fault.peer] : [])],
  ];
  return directions.flatMap((match, i) => {
    const portFlag = i === 0 ? '--dport' : '--sport';
    const byPort = ports.length === 0 ? [[]] : ports.map((p) => ['-p', 'tcp', portFlag, String(p)]);
    return byPort.map((p) => [...IPTABLES, '-A', chain, ...match, ...p, ...target]);
  });
}

function targetOf(fault: Fault): string[] {
  if (fault.kind === 'drop') return ['-j', 'DROP'];
  if (fault.kind === 'reject') return ['-j', 'REJECT'];
  const p = fault.probability ?? 0;
  if (!(p > 0 && p < 1)) throw new Error(`loss fault: probability ${p} must be between 0 and 1`);
  return ['-m', 'statistic', '--mode', 'random', '--probability', String(p), '-j', 'DROP'];
}

type Run = (argv: readonly string[]) => Promise<{ exitCode: number; stderr: string }>;

const runArgv: Run = async (argv) => {
  const [cmd, ...args] = argv;
  const r = await execa(cmd as string, args, { reject: false, timeout: 15_000 });
  return { exitCode: r.exitCode ?? -1, stderr: String(r.stderr) };
};

/** A lab subnet's faults: apply, heal, and remove the chain at the end. */
export class LabFaults {
  private constructor(
    readonly subnet: string,
    private readonly run: Run,
  ) {}

  /** The chain for `subnet`, made empty (a chain left by a killed run is emptied first). */
  static async open(subnet: string, run: Run = runArgv): Promise<LabFaults> {
    const faults = new LabFaults(subnet, run);
    await faults.close();
    for (const argv of setupArgvs(subnet)) await faults.must(argv);
    return faults;
  }

  async apply(fault: Fault): Promise<void> {
    for (const argv of faultArgvs(this.subnet, fault)) await this.must(argv);
  }

  async heal(): Promise<void> {
    for (const argv of healArgvs(this.subnet)) await this.must(argv);
  }

  async close(): Promise<void> {
    for (const argv of teardownArgvs(this.subnet)) await this.run(argv);
  }

  private async must(argv: readonly string[]): Promise<void> {
    const r = await this.run(argv);
    if (r.exitCode !== 0) throw new Error(`${argv.join(' ')}: exit ${r.exitCode}: ${r.stderr}`);
  }
}
