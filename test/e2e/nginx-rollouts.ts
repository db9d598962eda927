import { chown, readFile, stat, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { parse, stringify } from 'yaml';
import { ensureLabUser, formatReport, startLoad } from '../../scripts/lab/index.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';

type NginxFiles = NonNullable<Fleet['lab']['nginx']>;

/**
 * Debian's nginx in front of three lab hosts, drained by marking a server
 * line down: a rollout under load, then one whose nginx -t fails. Here (this
 * machine) or over SSH (web-1's sshd; the lab's hosts share /tmp, where
 * nginx's files are), as a balancer on a host of its own is reached; over
 * SSH, then a rollout as a non-root user through sudo.
 */

export function nginxRollouts(o: { subnet: string; overSsh: boolean; title: string }): void {
  let fleet: Fleet;
  let files: NginxFiles;
  beforeAll(async () => {
    fleet = await startFleet({
      hosts: 3,
      subnet: o.subnet,
      workDir: `/tmp/handoff-e2e-${o.subnet.split('.').at(-1) ?? ''}`,
      balancer: 'nginx',
      ...(o.overSsh && { config: { nginxOverSsh: true } }),
    });
    if (!fleet.lab.nginx) throw new Error('the lab started no nginx');
    files = fleet.lab.nginx;
  });
  afterAll(async () => {
    await fleet?.stop();
  });

  const releases = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));
  /** load through nginx as its clients send it: keep-alive, retrying only a reset idle connection */
  const loadThroughNginx = () =>
    startLoad({ url: fleet.lab.url, concurrency: 8, retryIdleReset: true });
  const where = o.overSsh ? `${o.subnet.replaceAll('.', '\\.')}\\.\\d+` : 'this machine';

  describe(o.title, () => {
    it("deploy check --live reads nginx's own numbers", async () => {
      const r = await fleet.deploy(['check', '--live']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain('deregistration delay 10s ≥ max_request 5s: ok');
      // Debian's nginx 1.22 has no keepalive_min_timeout: each reload resets an idle client
      expect(r.stdout + r.stderr).toContain(`${files.main} sets no keepalive_min_timeout`);
    });

    it('reaches the new release with zero failed requests, and leaves no server down', async () => {
      await fleet.stageEverywhere('r2');
      // someone else's file: every rewrite keeps its owner (and mode)
      await chown(files.upstream, 1, 1);
      const load = loadThroughNginx();
      const r = await fleet.deploy(['rollout', '--release', 'r2']);
      const report = await load.stop();
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(report.total).toBeGreaterThan(100);
      expect(report.failed, formatReport(report)).toBe(0);
      expect(await releases()).toEqual(['r2', 'r2', 'r2']);
      expect(await readFile(files.upstream, 'utf8')).not.toContain('down');
      const { uid, gid } = await stat(files.upstream);
      expect([uid, gid]).toEqual([1, 1]);
    });

    it('stops with one line saying why when nginx -t fails: the host stays in, the file and nginx as they were', async () => {
      await fleet.stageEverywhere('r3');
      const before = await readFile(files.upstream, 'utf8');
      const workers = await nginxWorkers(files);
      // another file of nginx's config broken by someone else: no reload may go out now
      await writeFile(files.extra, 'bogus_directive on;\n');
      const load = loadThroughNginx();
      const r = await fleet.deploy(['rollout', '--release', 'r3']);
      const report = await load.stop();
      await writeFile(files.extra, '');
      expect(r.code, r.stderr + r.stdout).toBe(1);
      // one line says why (the drain step's ERROR, nginx's own words in it), then the verdict
      const errors = r.stderr.split('\n').filter((l) => /^(ERROR|deploy:) /.test(l));
      expect(errors, r.stderr).toHaveLength(2);
      const why = new RegExp(
        `^ERROR (\\S+): drain ✗ .* nginx -t failed with (\\S+) marked down on ${where}, so nginx was not reloaded and \\S+ is as it was: .*unknown directive "bogus_directive"`,
      ).exec(errors[0] ?? '');
      expect(why, r.stderr).not.toBeNull();
      const [, name = '', target = ''] = why ?? [];
      const host = fleet.lab.host(name);
      expect(target).toBe(`${host.address}:${fleet.lab.layout.appPort}`);
      expect(errors[1]).toMatch(new RegExp(`^deploy: rollout of r3 failed on ${name} at drain\\b`));
      expect(r.stderr.split('\n').filter((l) => l.includes('nginx -t'))).toHaveLength(1);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      // the file byte for byte as it was: the host's server line is not down
      const after = await readFile(files.upstream, 'utf8');
      expect(after).toBe(before);
      expect(serverLine(after, target)).toBe(`server ${target};`);
      // nginx was never reloaded: the same workers serve the same upstream
      expect(await nginxWorkers(files)).toEqual(workers);
      expect(report.total).toBeGreaterThan(100);
      expect(report.failed, formatReport(report)).toBe(0);
      // the host is still in: requests through nginx reach it after the rollout stopped
      const since = await startLoad({ url: fleet.lab.url, concurrency: 3, maxRequests: 60 }).done;
      expect(since.failed, formatReport(since)).toBe(0);
      expect(since.hosts[host.name], formatReport(since)).toBeGreaterThan(0);
      expect(await releases()).toEqual(['r2', 'r2', 'r2']);
    });

    if (o.overSsh)
      it('drains as a non-root SSH user through exactly the sudoers line docs/security.md gives', async () => {
        await nginxAsLabUser(files, fleet.configPath);
        // deploy.yml changed: the hosts verify by it only once setup has run
        const setup = await fleet.deploy(['setup']);
        expect(setup.code, setup.stderr + setup.stdout).toBe(0);
        await fleet.stageEverywhere('r4');
        const load = loadThroughNginx();
        const r = await fleet.deploy(['rollout', '--release', 'r4']);
        const report = await load.stop();
        expect(r.code, r.stderr + r.stdout).toBe(0);
        expect(report.failed, formatReport(report)).toBe(0);
        expect(await releases()).toEqual(['r4', 'r4', 'r4']);
        const { uid } = await stat(files.upstream);
        expect(uid).toBe(Number((await execa('id', ['-u', SUDO_USER])).stdout));
      });
  });
}

const SUDO_USER = 'handoff-lab-nginx';

/** the upstream's line for `target`, as written (`server ADDRESS:PORT;`, `down` when drained) */
function serverLine(upstream: string, target: string): string | undefined {
  return upstream
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.startsWith(`server ${target}`));
}

/** the pids of nginx's workers (its master's children): a reload replaces them all */
async function nginxWorkers(files: NginxFiles): Promise<number[]> {
  const master = (await readFile(files.pid, 'utf8')).trim();
  const children = await readFile(`/proc/${master}/task/${master}/children`, 'utf8');
  const pids = children
    .trim()
    .split(/\s+/)
    .map(Number)
    .sort((a, b) => a - b);
  expect(pids.length).toBeGreaterThan(0);
  return pids;
}

/**
 * The balancer's SSH user becomes a lab user that owns nginx's directory (the
 * rewrite's temp file and the lock live there) and the upstream file, with
 * the sudoers rule docs/security.md gives for `main_config:` and nothing else.
 */
async function nginxAsLabUser(files: NginxFiles, configPath: string): Promise<void> {
  const nginx = '/usr/sbin/nginx';
  await ensureLabUser(SUDO_USER, {
    nopasswd: `${SUDO_USER} ALL=(root) NOPASSWD: ${nginx} -c ${files.main} -t -q, ${nginx} -c ${files.main} -s reload\n`,
  });
  // `user:` gives the user's own group too: a rewrite keeps both, which only root could change
  await execa('chown', [`${SUDO_USER}:`, files.dir, files.upstream]);
  const doc = parse(await readFile(configPath, 'utf8')) as { balancer: Record<string, unknown> };
  // the lab writes `ssh: ADDRESS`; the long form names the user
  doc.balancer.ssh = { address: doc.balancer.ssh, user: SUDO_USER };
  await writeFile(configPath, stringify(doc, { lineWidth: 0 }));
}
