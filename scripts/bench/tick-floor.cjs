// The least a healthy watchdog tick must do, written by hand for the watchdog
// benchmark (watchdog.ts): no library, synchronous fs, HTTP over node:net.
// It is not the watchdog and judges nothing beyond a 200; it is the floor a
// tick in Node cannot go under, measured beside the agent so the goal's ratio
// can be read against it. Usage: node tick-floor.cjs <host config>
/* global require, process, URL */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS, as the agent is: a fair floor */
'use strict';
const fs = require('fs');
const net = require('net');
const path = require('path');

const text = fs.readFileSync(process.argv[2], 'utf8');
// the host config is sealed: its checksum is computed over the whole text
let a = 0x811c9dc5;
for (let i = 0; i < text.length; i += 1) a = Math.imul(a ^ text.charCodeAt(i), 0x01000193);
const config = JSON.parse(text);
const { state: stateDir, lock: lockPath, root } = config.host;
const counters = path.join(stateDir, 'tick-floor.json');
const read = (file) => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};
const memory = JSON.parse(read(counters) ?? '{}');
read(path.join(stateDir, 'lock-wanted'));
// a lock of its own beside the host lock (a directory, and its holder written and synced)
const lockDir = `${lockPath}.floor.lock`;
fs.mkdirSync(lockDir);
const holder = fs.openSync(path.join(lockDir, 'holder'), 'w');
fs.writeSync(
  holder,
  JSON.stringify({ what: 'floor', pid: process.pid, since: new Date().toISOString() }),
);
fs.fsyncSync(holder);
fs.closeSync(holder);
read(path.join(stateDir, 'drain.json'));
const release = fs.readlinkSync(path.join(root, 'current'));
const token = read(path.join(stateDir, 'verify-token'));

let left = config.services.length;
for (const service of config.services) {
  const url = new URL(service.check.http.url);
  const socket = net.connect(Number(url.port || 80), url.hostname);
  let answer = '';
  socket.setEncoding('latin1');
  // the bench's checks answer at once; a second bounds a stuck one
  socket.setTimeout(1000, () => socket.destroy());
  socket.on('connect', () =>
    socket.write(
      `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n` +
        `x-handoff-verify: 1\r\n${token ? `x-handoff-token: ${token.trim()}\r\n` : ''}\r\n`,
    ),
  );
  socket.on('data', (chunk) => {
    answer += chunk;
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    const ok = /^HTTP\/1\.[01] 200 /.test(answer);
    memory[service.name] = ok ? (memory[service.name] ?? 0) + 1 : 0;
    left -= 1;
    if (left > 0) return;
    const temp = `${counters}.tmp`;
    const fd = fs.openSync(temp, 'w');
    fs.writeSync(fd, JSON.stringify(memory));
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(temp, counters);
    fs.rmSync(lockDir, { recursive: true });
    const healthy = Object.values(memory).filter((n) => n > 0).length;
    process.stdout.write(`${release}: ${healthy} of ${config.services.length} answered 200\n`);
    process.exitCode = healthy === config.services.length ? 0 : 1;
  });
}
