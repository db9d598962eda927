import { fileURLToPath } from 'node:url';
import { benchAgent, benchCli } from './bundles.js';
import { cpuTimeMs } from './cpu.js';
import { median, ms, type Row } from './table.js';
import { watchdogHost } from './watchdog-host.js';

const RUNS = 15;
// issue 24's goal on Node 24 (it was 2.0× on Node 20)
const GOAL = 1.5;
/** the least a healthy tick must do, by hand, with no library: what no tick in Node goes under */
const FLOOR = fileURLToPath(new URL('./tick-floor.cjs', import.meta.url));

/**
 * CPU time (user + sys) of one `deploy watchdog` tick on a healthy host with
 * three services, against a bare `node -e ''` measured interleaved in the
 * same run. The agent `deploy setup` installs is measured, and beside it the
 * floor (tick-floor.cjs: the same files, lock and three GETs by hand, no
 * library), which says how much of the ratio any tick in Node pays, and the
 * CLI bundle that setup installed before the agent had its own bundle.
 */
export async function benchWatchdog(report: (line: string) => void): Promise<Row[]> {
  const agentHost = await watchdogHost(benchAgent);
  const cliHost = await watchdogHost(benchCli);
  try {
    const tickArgv = (h: typeof agentHost) => [
      process.execPath,
      h.agent,
      'watchdog',
      '-c',
      h.hostConfig,
    ];
    // the first tick writes the counters; the measured ones are the steady state cron sees
    for (const h of [agentHost, cliHost]) {
      const first = await cpuTimeMs(tickArgv(h));
      if (first.code !== 0 || (first.output.match(/: healthy/g) ?? []).length !== 3)
        throw new Error(`the first watchdog tick did not see 3 healthy services:\n${first.output}`);
    }
    const samples = {
      node: [] as number[],
      floor: [] as number[],
      agent: [] as number[],
      cli: [] as number[],
    };
    const runs: Record<keyof typeof samples, () => Promise<number>> = {
      node: async () => (await cpuTimeMs([process.execPath, '-e', ''])).cpuMs,
      floor: async () => tick([process.execPath, FLOOR, agentHost.hostConfig]),
      agent: async () => tick(tickArgv(agentHost)),
      cli: async () => tick(tickArgv(cliHost)),
    };
    const order = Object.keys(runs) as (keyof typeof samples)[];
    for (let i = 0; i < RUNS; i += 1) {
      // rotate the order, so no contender always runs right after another's page cache warm-up
      for (let k = 0; k < order.length; k += 1) {
        const name = order[(i + k) % order.length] ?? 'node';
        samples[name].push(await runs[name]());
      }
    }
    report(
      `watchdog samples (ms): node ${samples.node.map(Math.round).join(' ')} | floor ${samples.floor.map(Math.round).join(' ')} | agent ${samples.agent.map(Math.round).join(' ')} | cli ${samples.cli.map(Math.round).join(' ')}`,
    );
    const node = median(samples.node);
    const floor = median(samples.floor);
    const agent = median(samples.agent);
    const cli = median(samples.cli);
    return [
      {
        figure: `watchdog tick CPU, agent bundle (median of ${RUNS})`,
        value: ms(agent),
        baseline: `${ms(node)} node -e ''`,
        ratio: agent / node,
        goal: `≤ ${GOAL.toFixed(1)}×`,
        pass: agent / node <= GOAL,
      },
      {
        figure: `the floor: the same work by hand, no library (tick-floor.cjs)`,
        value: ms(floor),
        baseline: `${ms(node)} node -e ''`,
        ratio: floor / node,
        goal: 'recorded',
      },
      {
        figure: `watchdog tick CPU, agent bundle ÷ the floor`,
        value: ms(agent),
        baseline: `${ms(floor)} floor`,
        ratio: agent / floor,
        goal: 'recorded',
      },
      {
        figure: `watchdog tick CPU, CLI bundle as agent (before)`,
        value: ms(cli),
        baseline: `${ms(node)} node -e ''`,
        ratio: cli / node,
        goal: 'recorded',
      },
    ];
  } finally {
    await agentHost.stop();
    await cliHost.stop();
  }
}

async function tick(argv: readonly string[]): Promise<number> {
  const r = await cpuTimeMs(argv);
  if (r.code !== 0) throw new Error(`a watchdog tick exited ${r.code}:\n${r.output}`);
  return r.cpuMs;
}
