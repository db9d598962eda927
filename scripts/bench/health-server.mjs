/* global process, console */
// One side of `npm run bench -- health`: a node:http server answering /ready, either bare
// ("ok", the baseline) or through the health library (argv[3], the built health.mjs) with a
// critical check whose calls are counted and served on /calls; or the same app route
// untracked or tracked by the library's countResponses (argv[4]: the state dir it writes to).
import http from 'node:http';

const [mode, lib, stateDir] = process.argv.slice(2);
let handle = (_req, res) => res.end('ok');
let calls = 0;
if (mode === 'library') {
  const { createHealth } = await import(lib);
  const health = createHealth({
    release: 'bench',
    autoStart: true,
    checks: [{ name: 'db', critical: true, timeoutMs: 500, run: () => void (calls += 1) }],
    maxLagMs: 500,
    watchdogs: { jobs: 30_000 },
  });
  // one round before the load; the next would come after it, a minute later
  health.start({ intervalMs: 60_000 });
  handle = (req, res) => {
    if (req.url === '/calls') return res.end(String(calls));
    if (health.handles(req)) return health.handler(req, res);
    res.end('app');
  };
}
if (mode === 'untracked' || mode === 'tracked') {
  const { countResponses } = await import(lib);
  const app = (_req, res) => res.end('app');
  handle = mode === 'tracked' ? countResponses({ stateDir }).wrap(app) : app;
}
const server = http.createServer((req, res) => handle(req, res));
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
