/* global process, console, setInterval, clearInterval */
// The lab's demo worker: two slots, each touching <STATE_DIR>/marks/<slot> every HEARTBEAT_MS.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const stateDir = process.env.STATE_DIR || '/run/handoff/lab';
const every = Number(process.env.HEARTBEAT_MS || 1000);
const slots = (process.env.SLOTS || 'worker-1,worker-2').split(',');
const marks = path.join(stateDir, 'marks');

function beat(slot) {
  mkdirSync(marks, { recursive: true });
  // temp + rename: a checker never reads a half-written mark
  const temp = path.join(marks, `.${slot}.${process.pid}.tmp`);
  writeFileSync(temp, `${Date.now()}\n`);
  renameSync(temp, path.join(marks, slot));
}

const timers = slots.map((slot) => {
  beat(slot);
  return setInterval(() => beat(slot), every);
});

function shutdown() {
  for (const t of timers) clearInterval(t);
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
console.log(`worker ${process.env.RELEASE || ''} slots ${slots.join(',')} every ${every} ms`);
