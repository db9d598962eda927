/* global process, console, setTimeout, setInterval, URL */
// The lab's demo HTTP service: plain JavaScript, so a host runs it with nothing but node.
// It answers health the way src/health does: 503 `draining` while <STATE_DIR>/draining exists.
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const release = process.env.RELEASE || path.basename(dir);
const stateDir = process.env.STATE_DIR || '/run/handoff/lab';
const port = Number(process.env.PORT || 8000);
const bind = process.env.BIND || '127.0.0.1';
// a release is "bad" when built so: its health fails for real, and a rollout must roll it back
const bad = process.env.BAD_HEALTH === '1' || existsSync(path.join(dir, 'BAD_HEALTH'));

let drainCache = { value: false, at: 0 };
async function draining() {
  if (Date.now() - drainCache.at < 250) return drainCache.value;
  const at = Date.now();
  const value = await stat(path.join(stateDir, 'draining')).then(
    () => true,
    (e) => e.code !== 'ENOENT',
  );
  drainCache = { value, at };
  return value;
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'text/plain', ...headers });
  res.end(`${body}\n`);
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://app');
  if (url.pathname === '/health') {
    if (bad) return send(res, 500, 'bad release');
    void draining().then((d) =>
      d ? send(res, 503, 'draining', { 'x-handoff-draining': '1' }) : send(res, 200, 'ok'),
    );
    return;
  }
  // a long request, to show that a graceful stop lets it finish
  const ms = Math.min(Number(url.searchParams.get('sleep') || 0), 60_000);
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ host: os.hostname(), release, pid: process.pid }));
  }, ms);
});
// longer than the balancer's keep-alive: the balancer, never the app, closes an idle connection
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

let stopping = false;
function shutdown() {
  if (stopping) return;
  stopping = true;
  server.prependListener('request', (_req, res) => res.setHeader('connection', 'close'));
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setInterval(() => server.closeIdleConnections(), 100).unref();
  setTimeout(
    () => {
      server.closeAllConnections();
      process.exit(1);
    },
    Number(process.env.GRACE_MS || 60_000),
  ).unref();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

server.listen(port, bind, () => {
  console.log(`app ${release} on ${bind}:${port} (${os.hostname()})${bad ? ' BAD' : ''}`);
});
