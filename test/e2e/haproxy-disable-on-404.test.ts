import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, labFiles, startLoad, until, type Lab } from '../../scripts/lab/index.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';

/**
 * `drain.answer: 404` behind Debian's HAProxy whose backend has `http-check
 * disable-on-404` and a persistence cookie per server: a drain soft-stops the
 * server (NOLB), which still serves its persistent clients through the
 * overlap, and a rollout under load loses nothing. Without the line the same
 * 404 is a failed check (DOWN), and deploy check --live warns.
 */

const SUBNET = '127.0.188';
const LINE = '  http-check disable-on-404';

/** What a watcher of `show stat` saw of one server during a rollout. */
interface ServerWatch {
  /** its statuses in turn, a repeat folded into one */
  readonly statuses: string[];
  /** a request carrying the server's persistence cookie, sent once while it was NOLB */
  pinned?: Promise<{ status: number | string; host?: string }>;
}

/** GET / with `Cookie: SRV=<server>` on a connection of its own: the answer and who sent it. */
function pinnedGet(
  url: string,
  server: string,
): Promise<{ status: number | string; host?: string }> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, headers: { cookie: `SRV=${server}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        const host = (JSON.parse(body || '{}') as { host?: string }).host;
        resolve({ status: res.statusCode ?? 0, ...(host !== undefined && { host }) });
      });
    });
    req.setTimeout(3000, () => req.destroy(new Error('ETIMEDOUT')));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: e.code ?? e.message }));
  });
}

/**
 * Reads the lab HAProxy's `show stat` every 50 ms until stopped: each server's
 * statuses in turn, and, the first time a server reads NOLB, one request
 * pinned to it by its cookie.
 */
function watchServers(lab: Lab): { stop(): Promise<Map<string, ServerWatch>> } {
  const seen = new Map<string, ServerWatch>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const r of await lab.showStat().catch(() => [])) {
        if (r.pxname !== lab.backend || r.svname === 'FRONTEND' || r.svname === 'BACKEND') continue;
        const name = r.svname ?? '?';
        const status = r.status ?? '';
        const watch = seen.get(name) ?? { statuses: [] };
        seen.set(name, watch);
        if (watch.statuses.at(-1) !== status) watch.statuses.push(status);
        if (status === 'NOLB' && !watch.pinned) watch.pinned = pinnedGet(lab.url, name);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return seen;
    },
  };
}

/** every server of the backend reads UP */
async function allUp(lab: Lab): Promise<boolean> {
  const rows = (await lab.showStat()).filter(
    (r) => r.pxname === lab.backend && r.svname !== 'FRONTEND' && r.svname !== 'BACKEND',
  );
  return rows.length === lab.hosts.length && rows.every((r) => r.status === 'UP');
}

describe('drain.answer 404 behind HAProxy with http-check disable-on-404', () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await startFleet({
      hosts: 3,
      subnet: SUBNET,
      workDir: '/tmp/handoff-e2e-188',
      disableOn404: true,
      config: { drainAnswer: 404, haproxyConfigFile: true },
    });
  });
  afterAll(async () => {
    await fleet?.stop();
  });

  /** `deploy rollout` under load, with the servers watched: the run, the load report, what was seen */
  const watchedRollout = async (release: string) => {
    await fleet.stageEverywhere(release);
    const load = startLoad({ url: fleet.lab.url, concurrency: 8 });
    const watcher = watchServers(fleet.lab);
    const r = await fleet.deploy(['rollout', '--release', release]);
    const report = await load.stop();
    const seen = await watcher.stop();
    return { r, report, seen };
  };

  it('deploy check --live reads the line, and warns that the cookie is not redispatched', async () => {
    const r = await fleet.deploy(['check', '--live']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // the lab sends a failed connection nowhere else (retries 0, no redispatch), so the
    // failed-request count means something: a client kept by its cookie would get a 503 after the stop
    expect(r.stdout).toMatch(
      /drain\.answer 404 with http-check disable-on-404 at \S+haproxy\.cfg line \d+: http-check disable-on-404 and persistence at \S+haproxy\.cfg line \d+: cookie SRV insert indirect nocache without option redispatch: /,
    );
    expect(r.stdout + r.stderr).not.toContain('drain.answer 404 without');
  });

  it('soft-stops each host (NOLB, its cookie still served), then reaches the new release with 0 failed', async () => {
    const { r, report, seen } = await watchedRollout('r2');
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(report.total).toBeGreaterThan(100);
    expect(report.failed, formatReport(report)).toBe(0);
    expect(await liveReleases((args) => fleet.deploy(args))).toEqual(['r2', 'r2', 'r2']);
    for (const host of fleet.lab.hosts) {
      const watch = seen.get(host.name);
      const statuses = watch?.statuses ?? [];
      // the drain's first 404 took it out as NOLB, not DOWN; the stop makes it DOWN after
      // fall checks, unless the new release answers its draining 404 first (UP → NOLB →
      // NOLB 1/2 → NOLB → UP was seen): out of rotation either way
      expect(
        statuses.find((s) => !s.startsWith('UP')),
        statuses.join(' → '),
      ).toBe('NOLB');
      expect(statuses.at(-1), statuses.join(' → ')).toBe('UP');
      // a client that HAProxy keeps on this server is still served by it while NOLB
      expect(await watch?.pinned).toEqual({ status: 200, host: host.name });
    }
    expect(await until(() => allUp(fleet.lab), 5_000)).toBe(true);
  });

  it('without the line: deploy check --live warns, and the 404 drains as a failed check (DOWN)', async () => {
    const config = labFiles(fleet.lab.layout.workDir).haproxyConfig;
    const text = await readFile(config, 'utf8');
    expect(text).toContain(`\n${LINE}\n`);
    await writeFile(config, text.replace(`\n${LINE}\n`, '\n'));
    await fleet.lab.haproxies[0]!.reload();
    expect(await until(() => allUp(fleet.lab), 10_000)).toBe(true);

    const check = await fleet.deploy(['check', '--live']);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout + check.stderr).toContain(
      'drain.answer 404 without http-check disable-on-404 in the backend: haproxy counts the 404 as a failed check',
    );
    const strict = await fleet.deploy(['check', '--live', '--strict']);
    expect(strict.code, strict.stdout + strict.stderr).toBe(1);

    const { r, report, seen } = await watchedRollout('r3');
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(report.failed, formatReport(report)).toBe(0);
    expect(await liveReleases((args) => fleet.deploy(args))).toEqual(['r3', 'r3', 'r3']);
    for (const host of fleet.lab.hosts) {
      const statuses = seen.get(host.name)?.statuses ?? [];
      expect(statuses, statuses.join(' → ')).not.toContain('NOLB');
      expect(
        statuses.find((s) => !s.startsWith('UP')),
        statuses.join(' → '),
      ).toMatch(/^DOWN/);
    }
  });
});
