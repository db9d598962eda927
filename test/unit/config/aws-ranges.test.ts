import { describe, expect, it } from 'vitest';
import { rangeWarnings } from '../../../src/balancer/alb/warnings.js';
import { liveRangeWarnings } from '../../../src/balancer/alb/config/ranges.js';
import { loadConfig } from '../../../src/config/load.js';
import { toHostJson } from '../../../src/config/serialize.js';
import { testConfig } from '../../support/config.js';
import { minimal, problemsOf, writeConfig } from './temp-config.js';

const head = minimal.slice(0, minimal.indexOf('balancer:'));
const tail = minimal.slice(minimal.indexOf('runtime:'));
const arn = 'arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/api/abc';

/** deploy.yml whose balancer is an ELBv2 target group with these settings */
const alb = (settings: string): string =>
  `${head}balancer:\n  kind: alb\n  target_group_arn: ${arn}\n${settings}${tail}`;
const accepted = `  interval: 5s\n  timeout: 2s\n  unhealthy_threshold: 2\n  healthy_threshold: 2\n`;

describe("deploy.yml held to AWS's ranges for a target group", () => {
  it('takes the smallest values AWS accepts for an ALB', async () => {
    const text = alb(`${accepted}  deregistration_delay: 0s\n  slow_start: 30s\n`);
    const config = await loadConfig(await writeConfig(text), { env: {} });
    expect(config.balancers[0]?.healthCheck?.interval).toBe(5000);
  });

  it('refuses each value outside the range, on its own line, with the range', async () => {
    const text = alb(
      `  interval: 3s\n  timeout: 1s\n  unhealthy_threshold: 11\n  healthy_threshold: 1\n  deregistration_delay: 2h\n  slow_start: 10s\n`,
    );
    expect(await problemsOf(text)).toEqual([
      "balancer.interval: AWS accepts 5–300 s for an Application Load Balancer's target group, got 3s (FILE:10:13)",
      "balancer.timeout: AWS accepts 2–120 s for an Application Load Balancer's target group, got 1s (FILE:11:12)",
      "balancer.unhealthy_threshold: AWS accepts 2–10 for an Application Load Balancer's target group, got 11 (FILE:12:24)",
      "balancer.healthy_threshold: AWS accepts 2–10 for an Application Load Balancer's target group, got 1 (FILE:13:22)",
      "balancer.deregistration_delay: AWS accepts 0–3600 s for an Application Load Balancer's target group, got 2h (FILE:14:25)",
      "balancer.slow_start: AWS accepts 0 (off) or 30–900 s for an Application Load Balancer's target group, got 10s (FILE:15:15)",
    ]);
  });

  it('refuses a fraction of a second', async () => {
    const text = alb(
      `  interval: 5500ms\n  timeout: 2s\n  unhealthy_threshold: 2\n  healthy_threshold: 2\n`,
    );
    expect(await problemsOf(text)).toEqual([
      'balancer.interval: AWS takes whole seconds; write 6s (FILE:10:13)',
    ]);
  });

  it('refuses a slow start on a network load balancer, which has none', async () => {
    const text = alb(`  type: network\n${accepted}  slow_start: 30s\n`);
    expect(await problemsOf(text)).toEqual([
      "balancer.slow_start: AWS accepts only 0 s (no slow start) for a Network Load Balancer's target group, got 30s (FILE:15:15)",
    ]);
  });

  it('keeps the type in the host config, so a host holds the same ranges', async () => {
    const config = await loadConfig(await writeConfig(alb(`  type: network\n${accepted}`)), {
      env: {},
    });
    const again = await loadConfig(await writeConfig(toHostJson(config), 'host.json'), { env: {} });
    expect(again.balancers[0]).toMatchObject({ kind: 'alb', type: 'network' });
  });

  it('refuses an idle timeout past 4000 s on an ALB', async () => {
    const text = alb(`${accepted}  idle_timeout: 2h\n`);
    expect(await problemsOf(text)).toEqual([
      "balancer.idle_timeout: AWS accepts 1–4000 s for an Application Load Balancer's target group, got 2h (FILE:14:17)",
    ]);
  });
});

describe('deploy check --live: a live group holding a value deploy.yml could not', () => {
  const live = { interval: 5000, timeout: 2000, unhealthyThreshold: 2, healthyThreshold: 2 };

  it('says nothing of a group within the ranges', () => {
    expect(
      liveRangeWarnings('alb', { ...live, slowStart: 0, deregistrationDelay: 300_000 }),
    ).toEqual([]);
  });

  it('warns of each value outside its range, naming the balancer and the key', () => {
    expect(
      liveRangeWarnings('api', { ...live, interval: 400_000, slowStart: 30_000 }, 'network'),
    ).toEqual([
      "api: the live interval: AWS accepts 5–300 s for a Network Load Balancer's target group, got 400s",
      "api: the live slow_start: AWS accepts only 0 s (no slow start) for a Network Load Balancer's target group, got 30s",
    ]);
  });

  it('reads only the alb entries of the config, with their type', () => {
    const config = testConfig();
    const albEntry = {
      kind: 'alb' as const,
      name: 'nlb',
      targetGroupArn: arn,
      type: 'network' as const,
      targets: {},
    };
    const withAlb = { ...config, balancers: [...config.balancers, albEntry] };
    const settings = [
      ...config.balancers.map((b) => ({
        name: b.name,
        settings: { ...live, interval: 1000 },
        source: 'x',
      })),
      { name: 'nlb', settings: { ...live, healthyThreshold: 11 }, source: 'live' },
    ];
    expect(rangeWarnings(withAlb, settings)).toEqual([
      "nlb: the live healthy_threshold: AWS accepts 2–10 for a Network Load Balancer's target group, got 11",
    ]);
  });

  it('holds a live group to the ranges of the type its protocol says, and says when balancer.type is not it', () => {
    const config = testConfig();
    const entry = { kind: 'alb' as const, name: 'api', targetGroupArn: arn, targets: {} };
    const settings = [
      {
        name: 'api',
        settings: { ...live, slowStart: 30_000 },
        source: 'live',
      },
    ];
    const types = new Map([['api', 'network' as const]]);
    expect(rangeWarnings({ ...config, balancers: [entry] }, settings, types)).toEqual([
      "api: the target group's protocol is a Network Load Balancer's, but balancer.type is application: write type: network so deploy.yml is held to its ranges",
      "api: the live slow_start: AWS accepts only 0 s (no slow start) for a Network Load Balancer's target group, got 30s",
    ]);
  });
});
