import { rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimFleet, type SimFleet } from '../../../scripts/bench/sim/fleet.js';
import { deploy } from '../cli/cli-process.js';
import { scratchDir } from '../../support/scratch.js';

/**
 * The simulated fleet of the scale benchmark (scripts/bench/sim) driven by
 * the real CLI as a process, so the simulation itself is tested: a verify, a
 * rollout that ends with every host on the new release, and hosts that fail.
 */
let fleet: SimFleet | undefined;
// a directory of its own: two checkouts' suites may run on one machine at once
let workDir = '';
beforeEach(async () => {
  workDir = await scratchDir('handoff-unit-sim-fleet-');
});
afterEach(async () => {
  await fleet?.stop();
  fleet = undefined;
  await rm(workDir, { recursive: true, force: true });
});

describe('the simulated fleet under the real CLI', () => {
  it('answers a verify and a batched rollout, and ends with every host on the new release', async () => {
    fleet = await startSimFleet({ hosts: 5, workDir, rttMs: 5, checkMs: 20 });
    const verify = await deploy('verify', '-c', fleet.configPath);
    expect(verify.stderr).toBe('');
    expect(verify.exitCode).toBe(0);
    expect(verify.stdout).toMatch(/sim-5 +app +✓ +r1/);

    const rollout = await deploy(
      'rollout',
      '--release',
      'r2',
      '--batch',
      '40%',
      '-c',
      fleet.configPath,
    );
    expect(rollout.exitCode, rollout.stderr).toBe(0);
    expect(rollout.stdout).toContain('wave 3: sim-5');
    expect(fleet.states.map((h) => [h.name, h.release, h.previous, h.draining, h.locked])).toEqual(
      fleet.states.map((h) => [h.name, 'r2', 'r1', null, false]),
    );
  }, 90_000); // two CLI processes from source: a few seconds each, more on a loaded machine

  it('has hosts that refuse, time out or answer garbage, each reported as failed', async () => {
    fleet = await startSimFleet({
      hosts: 6,
      workDir,
      faults: { refuse: 1 / 6, timeout: 1 / 6, garbage: 1 / 6 },
    });
    expect([...fleet.faults]).toEqual([
      ['sim-4', 'garbage'],
      ['sim-5', 'timeout'],
      ['sim-6', 'refuse'],
    ]);
    const verify = await deploy('verify', '-c', fleet.configPath);
    expect(verify.exitCode).not.toBe(0);
    const output = verify.stdout + verify.stderr;
    expect(output).toMatch(/sim-1 +app +✓/);
    for (const host of ['sim-4', 'sim-5', 'sim-6'])
      expect(output).toMatch(new RegExp(`${host}.*✗|✗ ${host}`));
  }, 60_000);
});
