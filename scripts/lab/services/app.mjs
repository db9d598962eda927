/* global process, console, setTimeout, URL */
// The lab's demo HTTP service: plain JavaScript, so a host runs it with nothing but node.
// Its health comes from handoff's health library (health.mjs, dist/health.mjs shipped in
// the release): 503 `draining` to the balancer while <STATE_DIR>/draining exists, its real
// readiness to handoff's own checks (x-handoff-verify), and x-release on every answer.
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countResponses, createHealth, gracefulShutdown } from './health.mjs';

const dir = path.dirname(fileURLToPath(import.meta.url));
const inRelease = (name) => path.join(dir, name);
// a release that says another id, whatever RELEASE is (a build that ignores it)
const claimed = existsSync(inRelease('CLAIM_RELEASE'))
  ? readFileSync(inRelease('CLAIM_RELEASE'), 'utf8').trim()
  : undefined;
const release = claimed || process.env.RELEASE || path.basename(dir);
const stateDir = process.env.STATE_DIR || '/run/handoff/lab';
const port = Number(process.env.PORT || 8000);
const bind = process.env.BIND || '127.0.0.1';
// a release is "bad" when built so: its readiness check fails for real, and a rollout must roll it back
const bad = process.env.BAD_HEALTH === '1' || existsSync(inRelease('BAD_HEALTH'));
// a release that warms up: not ready until this many ms after it started
const readyAfterMs = existsSync(inRelease('READY_AFTER_MS'))
  ? Number(readFileSync(inRelease('READY_AFTER_MS'), 'utf8').trim())
  : 0;
const startedAt = Date.now();
// a release whose /health passes while its real routes fail (a missing migration): 500 on every route
const routesFail = existsSync(inRelease('ROUTES_FAIL'));
// background errors: this fraction of real requests answers 500, on any release built so
const errorRate = existsSync(inRelease('ERROR_RATE'))
  ? Number(readFileSync(inRelease('ERROR_RATE'), 'utf8').trim())
  : 0;

const health = createHealth({
  stateDir,
  release,
  // nothing to warm: started by the first round that passes (warm-up is a check here)
  autoStart: true,
  // the lab's rollouts verify within seconds: one round decides
  failureThreshold: 1,
  successThreshold: 1,
  checks: [
    { name: 'self-test', run: () => !bad },
    { name: 'warm-up', run: () => Date.now() - startedAt >= readyAfterMs },
  ],
});
health.start({ intervalMs: 250 });

// the service's own counts by status class (rollout.canary.source: service), health probes aside
const counter = countResponses({ stateDir, skip: (req) => health.handles(req) });

const server = http.createServer(
  counter.wrap((req, res) => {
    const url = new URL(req.url ?? '/', 'http://app');
    if (health.handles(req)) return health.handler(req, res);
    if (routesFail || (errorRate > 0 && Math.random() < errorRate)) {
      res.writeHead(500, { 'content-type': 'application/json', 'x-release': release });
      res.end(JSON.stringify({ host: os.hostname(), release, error: 'route failed' }));
      return;
    }
    // a long request, to show that a graceful stop lets it finish
    const ms = Math.min(Number(url.searchParams.get('sleep') || 0), 60_000);
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-release': release });
      res.end(JSON.stringify({ host: os.hostname(), release, pid: process.pid }));
    }, ms);
  }),
);
// longer than the balancer's keep-alive: the balancer, never the app, closes an idle connection
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

// SIGTERM: ready answers 503 draining, in-flight requests finish, idle keep-alive
// connections close, then exit 0 (1 if GRACE_MS runs out first)
// a release built to ignore SIGTERM (a handler that does nothing): only SIGKILL ends it
if (existsSync(inRelease('IGNORE_SIGTERM')))
  process.on('SIGTERM', () => console.log(`app ${release}: SIGTERM ignored`));
else gracefulShutdown(server, { health, graceMs: Number(process.env.GRACE_MS || 60_000) });

server.listen(port, bind, () => {
  console.log(`app ${release} on ${bind}:${port} (${os.hostname()})${bad ? ' BAD' : ''}`);
});
