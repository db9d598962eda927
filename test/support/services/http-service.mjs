/* global process */
// A tiny real service for host-side tests: /health answers 503 "draining"
// while the drain marker exists, 500 when the release dir holds a BAD file
// (or host.state holds FAIL),
// else 200. Graceful on SIGTERM.
import { existsSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const port = Number(process.env.PORT);
const state = process.env.HANDOFF_STATE ?? '.';
const bad = existsSync(path.join(process.cwd(), 'BAD'));

const server = http.createServer((req, res) => {
  if (req.url === '/health') {
    if (existsSync(path.join(state, 'draining'))) {
      res.writeHead(503, { 'x-handoff-draining': '1' }).end('draining');
    } else if (bad || existsSync(path.join(state, 'FAIL'))) {
      res.writeHead(500).end('broken: secret=hunter2');
    } else {
      res.writeHead(200).end('ok');
    }
    return;
  }
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ release: process.env.RELEASE }));
});
server.listen(port, '127.0.0.1', () =>
  writeFileSync(path.join(state, `${process.env.HANDOFF_SERVICE}.pid`), String(process.pid)),
);
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
