/* global process, console, setInterval, clearInterval */
// The lab's demo worker: two slots in one process, each running its own job loop. Each
// slot's heartbeat comes from handoff's health library (health.mjs, shipped in the
// release): <STATE_DIR>/marks/worker-<n> is touched only while that slot's loop has run
// recently, so a hung loop goes stale though the process lives; marks/expected says 2.
import { startWorkerMarks } from './health.mjs';

const stateDir = process.env.STATE_DIR || '/run/handoff/lab';
const every = Number(process.env.HEARTBEAT_MS || 1000);
const slots = (process.env.SLOTS || 'worker-1,worker-2').split(',');

const loops = slots.map((name, i) => {
  const slot = i + 1;
  let lastRound = Date.now();
  // the job loop: a real worker would take a job from its queue here
  const timer = setInterval(() => (lastRound = Date.now()), every);
  const marks = startWorkerMarks({
    stateDir,
    slot,
    slots: slots.length,
    everyMs: every,
    // the slot's own in-memory verdict: its loop ran within the last three rounds
    healthy: () => Date.now() - lastRound < 3 * every,
    log: (level, message) => console.log(`${level} ${message}`),
  });
  return { name, stop: () => (clearInterval(timer), marks.stop()) };
});

function shutdown() {
  for (const l of loops) l.stop();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
console.log(`worker ${process.env.RELEASE || ''} slots ${slots.join(',')} every ${every} ms`);
