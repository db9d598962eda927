// npm run demo: a real rollout on the local lab, under load, with live progress.
// Three hosts (real sshd each, in its own mount namespace) behind a real HAProxy;
// `deploy setup`, a first rollout, then `deploy rollout` of a new release while a
// load generator keeps keep-alive connections busy and the watchdog ticks on
// every host. Everything is torn down on exit, on failure and on Ctrl-C.
// `npm run demo -- --runtime compose`: the same with real containers (Podman,
// docs/lab.md); `--subnet` and `--work-dir` keep it apart from another lab.
// `npm run demo -- --balancers 2`: an HAProxy pair with different check timings in
// front of the same hosts, the second on a lab host of its own (lb-b), reached
// over SSH, load through both frontends (docs/balancers.md).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { buildBundle } from './build.js';
import {
  composeEnv,
  composeLabProblem,
  formatReport,
  startLab,
  startLoad,
  startWatchdogs,
  type Lab,
} from './lab/index.js';

const HOSTS = Number(process.env.DEMO_HOSTS ?? 3);

function say(line: string): void {
  console.log(`\n\x1b[1m▸ ${line}\x1b[0m`);
}

async function deploy(
  bundle: string,
  configPath: string,
  env: Record<string, string>,
  args: string[],
): Promise<number> {
  const r = await execa(process.execPath, [bundle, ...args, '-c', configPath], {
    stdio: 'inherit',
    reject: false,
    env: { HANDOFF_WHO: 'demo', ...env },
  });
  return r.exitCode ?? 1;
}

function demoArgs() {
  const { values } = parseArgs({
    options: {
      runtime: { type: 'string', default: 'command' },
      // or LAB_BALANCER=alb: deploy.yml says kind alb, and the CLI reaches the lab's
      // ELBv2 endpoint through the SDK's standard endpoint override
      balancer: { type: 'string' },
      balancers: { type: 'string', default: '1' },
      subnet: { type: 'string' },
      'work-dir': { type: 'string' },
    },
  });
  const runtime = values.runtime;
  if (runtime !== 'command' && runtime !== 'compose')
    throw new Error(`--runtime ${runtime}: use command or compose`);
  const balancer = values.balancer ?? process.env.LAB_BALANCER ?? 'haproxy';
  if (balancer !== 'haproxy' && balancer !== 'alb' && balancer !== 'nginx')
    throw new Error(`--balancer ${balancer}: use haproxy, alb or nginx`);
  if (values.balancers !== '1' && values.balancers !== '2')
    throw new Error(`--balancers ${values.balancers}: use 1 or 2 (an HAProxy pair)`);
  if (values.balancers === '2' && balancer !== 'haproxy')
    throw new Error(`--balancers 2 is an HAProxy pair: leave out --balancer ${balancer}`);
  return {
    runtime,
    balancer,
    ...(values.balancers === '2' ? { pair: true } : {}),
    ...(values.subnet ? { subnet: values.subnet } : {}),
    ...(values['work-dir'] ? { workDir: values['work-dir'] } : {}),
  } as const;
}

/** compose mode: the image `localhost/handoff-lab:<release>` on every host, then the release files */
async function stage(lab: Lab, release: string): Promise<void> {
  if (lab.layout.runtime === 'compose') await lab.tagImage(release);
  await Promise.all(lab.hosts.map((h) => lab.stageRelease(h, release)));
}

async function main(): Promise<number> {
  const args = demoArgs();
  if (process.getuid?.() !== 0) {
    console.error(
      'the demo needs root (it makes mount namespaces and binds loopback addresses): sudo npm run demo',
    );
    return 2;
  }
  say('building the deploy bundles: the CLI, and the host agent that setup installs');
  const bundle = await buildBundle();
  if (args.runtime === 'compose') {
    const problem = await composeLabProblem(args.workDir ?? '/tmp/handoff-lab');
    if (problem) {
      console.error(`the compose demo needs Podman to start containers here: ${problem}`);
      return 3;
    }
  }
  const what = [
    args.balancer === 'alb' ? ", behind the lab's ELBv2 endpoint" : '',
    args.balancer === 'nginx' ? ', behind nginx (Debian nginx-light)' : '',
    args.runtime === 'compose' ? ', services in Podman containers' : '',
    'pair' in args
      ? ', and a second HAProxy with slower checks on a host of its own, reached over SSH (a pair)'
      : '',
  ].join('');
  say(`starting the lab: ${HOSTS} hosts with real sshd behind a real HAProxy${what}`);
  const lab = await startLab({ hosts: HOSTS, ...args, report: (l) => console.log(`  ${l}`) });
  const deployEnv = lab.deployEnv();
  try {
    const configPath = path.join(lab.layout.workDir, 'deploy.yml');
    // the pair's lb-b runs on a host of its own, reached over SSH (docs/lab.md)
    await writeFile(configPath, lab.config('pair' in args ? { peerOverSsh: true } : {}));
    console.log(`  deploy.yml: ${configPath}\n  frontend:   ${lab.url}`);
    // setup first: check --live reads each host's last stop through its agent
    say('deploy setup: agent, host config and directories on every host');
    if ((await deploy(bundle, configPath, deployEnv, ['setup'])) !== 0) return 1;
    say('deploy check: the drain timeline and its invariants, from the live balancers');
    if ((await deploy(bundle, configPath, deployEnv, ['check', '--live'])) !== 0) return 1;
    say('first rollout onto the fresh fleet: release r1');
    await stage(lab, 'r1');
    if ((await deploy(bundle, configPath, deployEnv, ['rollout', '--release', 'r1'])) !== 0)
      return 1;
    say('deploy verify: every service on every host, and the balancer');
    if ((await deploy(bundle, configPath, deployEnv, ['verify'])) !== 0) return 1;

    say('rollout of release r2 under continuous keep-alive load, watchdog ticking every second');
    await stage(lab, 'r2');
    const env = (h: (typeof lab.hosts)[number]) => composeEnv(lab.layout, h);
    const watchdogs = startWatchdogs(lab.hosts, args.runtime === 'compose' ? { env } : {});
    // a pair: load through each frontend, as the clients of both would send it
    const fronts =
      args.balancer === 'nginx'
        ? [{ name: 'nginx', url: lab.url }]
        : lab.haproxies.slice(0, lab.layout.pair ? 2 : 1);
    const loads = fronts.map((h) => ({
      name: h.name,
      // an nginx reload closes idle keep-alive connections: see retryIdleReset (docs/lab.md)
      load: startLoad({
        url: h.url,
        concurrency: 8,
        maxDurationMs: 600_000,
        retryIdleReset: args.balancer === 'nginx',
      }),
    }));
    const code = await deploy(bundle, configPath, deployEnv, ['rollout', '--release', 'r2']);
    const reports = await Promise.all(
      loads.map(async (l) => ({ name: l.name, report: await l.load.stop() })),
    );
    const restarts = (await watchdogs.stop()).flatMap((out) =>
      out.split('\n').filter((l) => /restart/.test(l)),
    );

    say('result');
    for (const { name, report } of reports) {
      const through = reports.length > 1 ? `through ${name}: ` : '';
      console.log(
        `  ${through}requests sent: ${report.total}   failed (non-2xx or socket errors): ${report.failed}`,
      );
      console.log(`  ${formatReport(report)}`);
    }
    const failed = reports.reduce((n, r) => n + r.report.failed, 0);
    console.log(`  watchdog restarts during the rollout: ${restarts.length}`);
    console.log(
      code === 0 && failed === 0
        ? '\n  zero requests reached nowhere.'
        : '\n  the rollout did not go as it should: see above.',
    );
    return code === 0 && failed === 0 ? 0 : 1;
  } finally {
    say('tearing the lab down');
    await lab.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
