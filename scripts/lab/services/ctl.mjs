/* global process, console, setTimeout */
// node ctl.mjs start|stop|status app|worker — the command runtime's start/stop/status.
// Pid and log files live in STATE_DIR; stop waits for a graceful exit, then kills.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

function runningPid() {
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  try {
    process.kill(pid, 0);
    // a recycled pid belongs to someone else
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmd.includes(`${name}.mjs`) ? pid : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function start() {
  if (runningPid()) return console.log(`${name} already running`);
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
  if (!runningPid()) {
    console.error(`${name} exited right after start; see ${path.join(stateDir, `${name}.log`)}`);
    process.exit(1);
  }
  console.log(`${name} started, pid ${child.pid}`);
}

async function stop() {
  const pid = runningPid();
  if (!pid) {
    rmSync(pidFile, { force: true });
    return console.log(`${name} not running`);
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + stopTimeout;
  while (runningPid() && Date.now() < deadline) await sleep(100);
  if (runningPid()) process.kill(pid, 'SIGKILL');
  rmSync(pidFile, { force: true });
  console.log(`${name} stopped`);
}

function status() {
  const pid = runningPid();
  console.log(pid ? `${name} running, pid ${pid}` : `${name} not running`);
  process.exit(pid ? 0 : 3);
}

if (action === 'start') await start();
else if (action === 'stop') await stop();
else status();
