/* global process, console, setTimeout */
// node ctl.mjs start|stop|status app|worker — the command runtime's start/stop/status.
// Pid and log files live in STATE_DIR; stop waits for a graceful exit, then kills.
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [action, name] = process.argv.slice(2);
if (!['start', 'stop', 'status'].includes(action) || !['app', 'worker'].includes(name)) {
  console.error('usage: node ctl.mjs start|stop|status app|worker');
  process.exit(2);
}
const dir = path.dirname(fileURLToPath(import.meta.url));
const stateDir = process.env.STATE_DIR || '/run/handoff/lab';
const pidFile = path.join(stateDir, `${name}.pid`);
const stopTimeout = Number(process.env.STOP_TIMEOUT_MS || 30_000);

function isOurs(pid) {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    // a recycled pid belongs to someone else; and every lab host shares one pid
    // namespace, so a process of this host is one in this mount namespace
    return (
      path.basename(argv[0] ?? '').startsWith('node') &&
      argv.some((a) => a === `${name}.mjs` || a.endsWith(`/${name}.mjs`)) &&
      readlinkSync(`/proc/${pid}/ns/mnt`) === readlinkSync('/proc/self/ns/mnt')
    );
  } catch {
    return false;
  }
}

/**
 * Every process of this service on this host: the one in the pid file, and any
 * other (one started by hand before handoff managed the host, or by an old
 * pid file's owner), so stop stops them all and status sees them all.
 */
function runningPids() {
  const found = new Set();
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    if (pid > 0 && isOurs(pid)) found.add(pid);
  }
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (pid > 0 && pid !== process.pid && isOurs(pid)) found.add(pid);
  }
  return [...found];
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function start() {
  if (runningPids().length > 0) return console.log(`${name} already running`);
  const log = openSync(path.join(stateDir, `${name}.log`), 'a');
  const child = spawn(process.execPath, [path.join(dir, `${name}.mjs`)], {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...process.env, RELEASE: process.env.RELEASE || path.basename(dir) },
  });
  closeSync(log);
  writeFileSync(pidFile, `${child.pid}\n`);
  child.unref();
  // a service that dies at once (port taken, syntax error) fails the start, not a later check
  await sleep(300);
  if (!runningPids().includes(child.pid)) {
    console.error(`${name} exited right after start; see ${path.join(stateDir, `${name}.log`)}`);
    process.exit(1);
  }
  console.log(`${name} started, pid ${child.pid}`);
}

async function stop() {
  const pids = runningPids();
  if (pids.length === 0) {
    rmSync(pidFile, { force: true });
    return console.log(`${name} not running`);
  }
  for (const pid of pids) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + stopTimeout;
  while (runningPids().length > 0 && Date.now() < deadline) await sleep(100);
  for (const pid of runningPids()) process.kill(pid, 'SIGKILL');
  rmSync(pidFile, { force: true });
  console.log(`${name} stopped (pid ${pids.join(', ')})`);
}

function status() {
  const pids = runningPids();
  console.log(pids.length ? `${name} running, pid ${pids.join(', ')}` : `${name} not running`);
  process.exit(pids.length ? 0 : 3);
}

if (action === 'start') await start();
else if (action === 'stop') await stop();
else status();
