import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { toHostJson } from '../../../src/config/serialize.js';
import { minimal, problemsOf, writeConfig } from './temp-config.js';

const head = minimal.slice(0, minimal.indexOf('balancer:'));
const tail = minimal.slice(minimal.indexOf('runtime:'));

/** deploy.yml with `balancers:` as given, one entry per line */
const withBalancers = (entries: string): string => `${head}balancers:\n${entries}${tail}`;

const pair = `  - { name: lb-a, kind: haproxy, socket: /run/haproxy/a.sock, backend: be_api }
  - { name: lb-b, kind: haproxy, socket: "tcp://10.0.0.6:9999", backend: be_api }
`;

describe('balancers: in deploy.yml', () => {
  it('loads a list into one entry per balancer, each with its name and no targets of its own', async () => {
    const config = await loadConfig(await writeConfig(withBalancers(pair)), { env: {} });
    expect(config.balancers).toEqual([
      {
        kind: 'haproxy',
        name: 'lb-a',
        socket: '/run/haproxy/a.sock',
        backend: 'be_api',
        targets: {},
      },
      {
        kind: 'haproxy',
        name: 'lb-b',
        socket: 'tcp://10.0.0.6:9999',
        backend: 'be_api',
        targets: {},
      },
    ]);
  });

  it('reads balancer: as a list of one, named by its kind', async () => {
    const config = await loadConfig(await writeConfig(minimal), { env: {} });
    expect(config.balancers.map((b) => [b.kind, b.name])).toEqual([['static', 'static']]);
  });

  it('names an entry without a name by its kind and its target group or socket', async () => {
    const text = withBalancers(`  - kind: alb
    target_group_arn: arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/api-public/abc
  - kind: alb
    target_group_arn: arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/api-internal/def
  - { kind: haproxy, socket: /run/haproxy/a.sock, backend: be_api }
`);
    const config = await loadConfig(await writeConfig(text), { env: {} });
    expect(config.balancers.map((b) => b.name)).toEqual([
      'alb:api-public',
      'alb:api-internal',
      'haproxy:/run/haproxy/a.sock',
    ]);
  });

  it('keeps an nginx over SSH its own paths there, and names it by its host', async () => {
    const text = withBalancers(`  - { kind: nginx, config: up.conf, upstream: api }
  - { kind: nginx, ssh: { address: lb-1, user: deploy }, config: handoff/up.conf, upstream: api, main_config: nginx.conf }
`).replace('runtime:', 'drain:\n  method: deregister\nruntime:');
    const config = await loadConfig(await writeConfig(text), { env: {} });
    const [here, there] = config.balancers;
    expect(here?.name).toBe('nginx:api');
    expect(here?.kind === 'nginx' && here.config.startsWith('/')).toBe(true);
    expect(there).toMatchObject({
      name: 'nginx:lb-1:api',
      ssh: { address: 'lb-1', user: 'deploy' },
      config: 'handoff/up.conf',
      mainConfig: 'nginx.conf',
    });
    const published = await loadConfig(await writeConfig(toHostJson(config), 'host.json'), {
      env: {},
    });
    expect(published.balancers[1]).toEqual(there);
  });

  it("maps hosts to this balancer's own targets, ports included", async () => {
    const text = withBalancers(`  - kind: alb
    name: grpc
    target_group_arn: arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/api-grpc/abc
    targets: { web-1: "10.0.0.1:9090", web-2: "10.0.0.2:9090" }
`);
    const config = await loadConfig(await writeConfig(text), { env: {} });
    expect(config.balancers[0]?.targets).toEqual({
      'web-1': '10.0.0.1:9090',
      'web-2': '10.0.0.2:9090',
    });
  });

  it('keeps names and targets in the host config setup publishes', async () => {
    const text =
      withBalancers(`  - { name: lb-a, kind: haproxy, socket: /run/a.sock, backend: be_api, targets: { web-1: s1 } }
  - { name: lb-b, kind: haproxy, socket: /run/b.sock, backend: be_api }
`);
    const config = await loadConfig(await writeConfig(text), { env: {} });
    const published = await writeConfig(toHostJson(config), 'host.json');
    const again = await loadConfig(published, { env: {} });
    expect(again.balancers.map((b) => [b.name, b.targets])).toEqual([
      ['lb-a', { 'web-1': 's1' }],
      ['lb-b', {}],
    ]);
  });
});

describe('default balancer names in the host config', () => {
  it('are made again on load, not written out where the name rule would refuse them', async () => {
    const text = withBalancers(`  - { kind: haproxy, socket: /run/haproxy/a.sock, backend: be_api }
  - { kind: alb, region: eu-west-1, target_group_arn: "arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/api/abc" }
`);
    const config = await loadConfig(await writeConfig(text), { env: {} });
    const published = await writeConfig(toHostJson(config), 'host.json');
    const again = await loadConfig(published, { env: {} });
    expect(again.balancers.map((b) => b.name)).toEqual(['haproxy:/run/haproxy/a.sock', 'alb:api']);
  });
});

describe('bad balancers: in deploy.yml', () => {
  it('with both spellings asks for one', async () => {
    const text = `${minimal.replace(tail, '')}balancers:\n${pair}${tail}`;
    expect(await problemsOf(text)).toEqual([
      'balancers: give balancer (one) or balancers (a list), not both; move balancer into the list (FILE:14:3)',
    ]);
  });

  it('with neither says the balancers are required', async () => {
    expect(await problemsOf(`${head}${tail}`)).toEqual([
      'balancers: required: the balancer(s) in front of the hosts (FILE:1:1)',
    ]);
  });

  it('with two balancers of the same name points at the second', async () => {
    const text = withBalancers(pair.replace('name: lb-b', 'name: lb-a'));
    expect(await problemsOf(text)).toEqual([
      'balancers[1].name: duplicate balancer name "lb-a" (also balancers[0]); each must be unique: set name on one of them (FILE:9:13)',
    ]);
  });

  it('with two unnamed balancers on the same socket asks for a name', async () => {
    const text = withBalancers(`  - { kind: haproxy, socket: /run/a.sock, backend: be_api }
  - { kind: haproxy, socket: /run/a.sock, backend: be_web }
`);
    expect(await problemsOf(text)).toEqual([
      'balancers[1].name: duplicate balancer name "haproxy:/run/a.sock" (also balancers[0]); each must be unique: set name on one of them (FILE:9:5)',
    ]);
  });

  it('with a target mapping naming a host deploy.yml lacks points at that key', async () => {
    const text = withBalancers(
      pair.replace('backend: be_api }\n', 'backend: be_api, targets: { web-9: s9 } }\n'),
    );
    expect(await problemsOf(text)).toEqual([
      'balancers[0].targets.web-9: names no host of deploy.yml (hosts: web-1, web-2); use a hosts[].name (FILE:8:98)',
    ]);
  });

  it('with two hosts mapped to one target of a balancer says which', async () => {
    const text =
      withBalancers(`  - { name: lb-a, kind: haproxy, socket: /run/a.sock, backend: be_api, targets: { web-2: "10.0.0.1" } }
`);
    expect(await problemsOf(text)).toEqual([
      'balancers[0].targets.web-2: web-2 and web-1 would both be target "10.0.0.1" of this balancer; each host needs its own (FILE:8:90)',
    ]);
  });

  it('with a mapped server name haproxy cannot take refuses it at its line', async () => {
    const text =
      withBalancers(`  - { name: lb-a, kind: haproxy, socket: /run/a.sock, backend: be_api, targets: { web-1: "a;b" } }
`);
    expect(await problemsOf(text)).toEqual([
      "balancers[0].targets.web-1: is not an haproxy server name (letters, digits, '-', '_', '.' and ':' only) (FILE:8:90)",
    ]);
  });

  it('with a static balancer beside one with an API refuses the static one', async () => {
    const text =
      withBalancers(`${pair}  - { kind: static, interval: 5s, timeout: 2s, unhealthy_threshold: 2, healthy_threshold: 2 }
`);
    expect(await problemsOf(text)).toEqual([
      'balancers[2].kind: static cannot be listed beside balancers with an API (nothing could confirm its drain); list only alb, haproxy and nginx entries, or only static ones (FILE:10:13)',
    ]);
  });

  it('with half the health-check settings on one entry points into that entry', async () => {
    const text = withBalancers(
      pair.replace('backend: be_api }\n', 'backend: be_api, interval: 2s }\n'),
    );
    expect(await problemsOf(text)).toContain(
      'balancers[0].timeout: required with the other health-check settings (give interval, timeout, unhealthy_threshold and healthy_threshold together, or none) (FILE:8:5)',
    );
  });
});
