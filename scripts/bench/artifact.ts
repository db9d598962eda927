import { copyFile, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { healthBundlePath } from '../build.js';
import { sshClientOptions, type Lab } from '../lab/index.js';
import { SERVICE_FILES, servicesDir } from '../lab/services.js';
import type { RolloutResult, StepName } from '../../src/rollout/types.js';
import { startBenchFleet, type BenchFleet } from './fleet.js';
import { resultOf } from './rollout.js';
import { median, ms, type Row } from './table.js';

const WORK = '/tmp/handoff-bench-artifact';
const MEASURED = ['web-1', 'web-2', 'web-3'];
/** from the drain to the undrain: the host is out of rotation */
const DRAINED: readonly StepName[] = [
  'drain',
  'await-out',
  'overlap',
  'stop',
  'switch',
  'start',
  'verify',
  'undrain',
];

/** The lab's services plus `megabytes` of random bytes (gzip cannot shrink them), as a .tgz. */
async function buildArtifact(name: string, megabytes: number): Promise<string> {
  const dir = path.join(WORK, name);
  await mkdir(dir, { recursive: true });
  for (const f of SERVICE_FILES) await copyFile(path.join(servicesDir, f), path.join(dir, f));
  await copyFile(healthBundlePath, path.join(dir, 'health.mjs'));
  await writeFile(path.join(dir, 'payload.bin'), randomBytes(megabytes * 1024 * 1024));
  const file = path.join(WORK, `${name}.tgz`);
  await execa('tar', ['-czf', file, '-C', dir, '.']);
  return file;
}

/**
 * OpenSSH's scp of `file` to every host: one after another (what a shell
 * script would do: the baseline), or all at once (the most concurrency buys
 * on this machine, where the hosts share the orchestrator's cores).
 */
async function scpTo(lab: Lab, file: string, atOnce: boolean): Promise<number> {
  const started = performance.now();
  const one = async (h: Lab['hosts'][number]): Promise<void> => {
    const r = await execa(
      'scp',
      [
        '-q',
        ...sshClientOptions(lab.layout.workDir),
        '-P',
        String(h.sshPort),
        file,
        `root@${h.address}:/tmp/handoff-bench-scp.tgz`,
      ],
      { reject: false },
    );
    if (r.exitCode !== 0) throw new Error(`scp to ${h.name} failed: ${String(r.stderr)}`);
  };
  const hosts = lab.hosts.filter((x) => MEASURED.includes(x.name));
  if (atOnce) await Promise.all(hosts.map(one));
  else for (const h of hosts) await one(h);
  return performance.now() - started;
}

async function rolloutWith(
  fleet: BenchFleet,
  release: string,
  file: string,
): Promise<RolloutResult> {
  const run = await fleet.deploy([
    'rollout',
    '--release',
    release,
    '--artifact',
    file,
    '--hosts',
    MEASURED.join(','),
    '--json',
  ]);
  if (run.code !== 0)
    throw new Error(`deploy rollout ${release} exited ${run.code}: ${run.stderr.slice(-2000)}`);
  return resultOf(run.stdout);
}

/** every host's prepare ran at once (one wave): the slowest is the fleet's shipping time */
const shipMs = (r: RolloutResult): number =>
  Math.max(
    ...r.hosts.flatMap((h) =>
      h.steps.filter((s) => s.step === 'prepare').map((s) => s.duration_ms),
    ),
  );

const drainedMs = (r: RolloutResult): number =>
  median(
    r.hosts.map((h) =>
      h.steps.filter((s) => DRAINED.includes(s.step)).reduce((a, s) => a + s.duration_ms, 0),
    ),
  );

/**
 * A1: shipping a 50 MB artifact to 3 hosts (the prepare step, one wave of 3)
 * against scp of the same file to the same hosts one after another. A2: the
 * same again, which the hosts skip. A3: the time a host is drained with a
 * 1 MB and with a 50 MB artifact: the upload happens before the drain.
 */
export async function benchArtifact(report: (line: string) => void): Promise<Row[]> {
  await rm(WORK, { recursive: true, force: true });
  await mkdir(WORK, { recursive: true });
  // a 4th host keeps serving (min_healthy 1) while the 3 measured ones deploy in one wave
  report('artifact: starting a 4-host lab; rollouts to web-1..3 in one wave of 3');
  const fleet = await startBenchFleet({
    hosts: 4,
    subnet: '127.0.47',
    workDir: '/tmp/handoff-bench-artifact-lab',
    config: { batch: 3, minHealthy: 1 },
    report: (line) => report(`  ${line}`),
  });
  try {
    const small = await buildArtifact('a1', 1);
    const big = await buildArtifact('a50', 50);
    const bigBytes = (await stat(big)).size;
    report(`artifacts: 1 MB → ${(await stat(small)).size} B, 50 MB → ${bigBytes} B`);
    const one = await rolloutWith(fleet, 'a1', small);
    const fifty = await rolloutWith(fleet, 'a50', big);
    const again = await rolloutWith(fleet, 'a50', big);
    const scp = await scpTo(fleet.lab, big, false);
    const scpAtOnce = await scpTo(fleet.lab, big, true);
    const ship = shipMs(fifty);
    report(
      `prepare (ms): 1 MB ${shipMs(one)}, 50 MB ${ship}, 50 MB again ${shipMs(again)}; scp one by one ${Math.round(scp)}, scp to the 3 at once ${Math.round(scpAtOnce)} (${(scpAtOnce / scp).toFixed(2)}×: the floor concurrency reaches on this machine, with no sha256 and no extract)`,
    );
    const d1 = drainedMs(one);
    const d50 = drainedMs(fifty);
    return [
      {
        figure: 'A1 ship 50 MB to 3 hosts (prepare, sha256, extract)',
        value: ms(ship),
        baseline: `scp one by one: ${ms(scp)}`,
        ratio: ship / scp,
        goal: '≤ 0.5× scp',
        pass: ship <= 0.5 * scp,
      },
      {
        figure: 'A2 the same artifact again (hosts skip the upload)',
        value: ms(shipMs(again)),
        baseline: `scp one by one: ${ms(scp)}`,
        ratio: shipMs(again) / scp,
        goal: '≤ 0.5× scp',
        pass: shipMs(again) <= 0.5 * scp,
      },
      {
        figure: 'A3 time drained per host (median), 50 MB artifact',
        value: ms(d50),
        baseline: `1 MB artifact: ${ms(d1)}`,
        ratio: d50 / d1,
        goal: '≤ 1.2× the 1 MB figure',
        pass: d50 <= 1.2 * d1,
      },
    ];
  } finally {
    await fleet.stop();
  }
}
