/* global process, console, setInterval, URL */
// A real service built on the health library as a user would write it (HEALTH_LIB points
// at the built dist/health.mjs): a critical database and a non-critical cache reached over
// TCP (the test's stand-ins on DB_PORT and CACHE_PORT), a job loop watched by a watchdog,
// and /control/* so a test can warm it up, block its event loop or hang its job loop.
import net from 'node:net';
import http from 'node:http';

const { createHealth, gracefulShutdown } = await import(process.env.HEALTH_LIB);

/**
 * One round trip to a stand-in; the error carries a "connection string", as real ones do.
 * Like a real client it ends the call when the check's signal aborts and has a timeout of
 * its own; DB_CLIENT=bare is a client with neither, whose call to a black hole never settles.
 */
function ping(port, name, signal, bare = false) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    if (!bare) {
      socket.setTimeout(1000, () =>
        socket.destroy(Object.assign(new Error(`${name} timeout`), { code: 'ETIMEDOUT' })),
      );
      signal.addEventListener('abort', () => socket.destroy(signal.reason), { once: true });
    }
    socket.on('connect', () => socket.write('ping\n'));
    socket.on('data', () => {
      socket.destroy();
      resolve();
    });
    socket.on('error', (e) =>
      reject(
        Object.assign(new Error(`${name}://app:s3cret@127.0.0.1:${port} ${e.message}`), {
          code: e.code,
        }),
      ),
    );
  });
}

const health = createHealth({
  checks: [
    {
      name: 'db',
      critical: true,
      timeoutMs: 200,
      run: (signal) =>
        ping(Number(process.env.DB_PORT), 'postgres', signal, process.env.DB_CLIENT === 'bare'),
    },
    {
      name: 'cache',
      critical: false,
      timeoutMs: 200,
      run: (signal) => ping(Number(process.env.CACHE_PORT), 'redis', signal),
    },
  ],
  failureThreshold: 3,
  successThreshold: 2,
  maxLagMs: 500,
  lagWindowMs: 2000,
  watchdogs: { jobs: 1000 },
  release: 'r1',
});
health.start({ intervalMs: 100, lagIntervalMs: 20 });

let stuck = false;
setInterval(() => {
  if (!stuck) health.heartbeat('jobs');
}, 100);

const server = http.createServer((req, res) => {
  if (health.handles(req)) return health.handler(req, res);
  const url = new URL(req.url ?? '/', 'http://service');
  if (url.pathname === '/control/warm') health.markStarted();
  if (url.pathname === '/control/stick') stuck = true;
  if (url.pathname === '/control/block') {
    const until = Date.now() + Number(url.searchParams.get('ms'));
    while (Date.now() < until); // a synchronous stall, as a CPU-bound request would cause
  }
  res.end('hello');
});
gracefulShutdown(server, {
  health,
  // unset: the library's default, from HANDOFF_DETECT_TIME as the runtime exports it
  ...(process.env.DRAIN_DELAY_MS !== undefined && {
    drainDelayMs: Number(process.env.DRAIN_DELAY_MS),
  }),
  graceMs: 2000,
});
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
