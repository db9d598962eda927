import { readFile, statfs } from 'node:fs/promises';
import path from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import { startHeartbeat, writeAtomically, type Heartbeat } from './heartbeat.js';
import { resolveMarksDir } from './marks-dir.js';
import { EXPECTED_FILE, MAX_SLOTS, slotMark } from './read-marks.js';
import { noteStart } from './restart-memory.js';

/** what a worker slot says, once per transition; default: one line on stderr */
export type MarksLog = (level: 'info' | 'warn' | 'error', message: string) => void;

export interface WorkerMarksOptions {
  /**
   * the marks directory; default HANDOFF_MARKS_DIR, which the runtime exports from the
   * service's `heartbeat` check, else `<stateDir>/marks`
   */
  readonly dir?: string;
  /** host.state; default the HANDOFF_STATE environment variable the runtime exports */
  readonly stateDir?: string;
  /** this slot, 1-based: its mark is `<dir>/worker-<slot>` */
  readonly slot: number;
  /** how many slots the workers run: written to `marks/expected` */
  readonly slots: number;
  /** the worker's own in-memory verdict, asked every tick */
  healthy(): boolean;
  /** default 1000 ms */
  readonly everyMs?: number;
  /** restarts of a slot never healthy in between are reported once per window; default 60 s */
  readonly graceMs?: number;
  readonly log?: MarksLog;
  readonly clock?: Clock;
}

export interface WorkerMarks {
  stop(): void;
  /** resolves once the slot has written `expected` and looked at its restarts */
  readonly ready: Promise<void>;
}

const TMPFS_MAGIC = 0x01021994;
const stderrLog: MarksLog = (level, message) =>
  void process.stderr.write(`${level.toUpperCase()} ${message}\n`);

/**
 * One worker slot's heartbeat: the mark is touched on every tick while the
 * slot's own predicate holds, so a hung loop goes stale while the process
 * lives. Marks are named by slot, not pid: a respawned slot overwrites its
 * own file instead of leaving a dead one behind. Each slot rewrites
 * `expected` (temp + rename), so the count comes from the workers, not from
 * a second number typed into deploy.yml.
 */
export function startWorkerMarks(options: WorkerMarksOptions): WorkerMarks {
  const { slot, slots } = options;
  if (
    !Number.isSafeInteger(slots) ||
    slots < 1 ||
    slots > MAX_SLOTS ||
    !Number.isSafeInteger(slot) ||
    slot < 1 ||
    slot > slots
  )
    throw new RangeError(
      `startWorkerMarks: slot ${slot} of ${slots}: slots from 1 to slots, slots from 1 to ${MAX_SLOTS}`,
    );
  const marks = resolveMarksDir(options);
  const clock = options.clock ?? systemClock;
  const log = options.log ?? stderrLog;
  const name = slotMark(options.slot);
  const graceMs = options.graceMs ?? 60_000;
  let wasHealthy: boolean | undefined;

  const ready = (async () => {
    await writeAtomically(path.join(marks, EXPECTED_FILE), `${options.slots}\n`);
    const restarts = await noteStart(marks, name, clock.now(), graceMs, await lastMark());
    if (restarts.report)
      log(
        'error',
        `${name}: started ${restarts.starts} times within ${graceMs / 1000}s without once being healthy`,
      );
    if (!(await onTmpfs(marks)))
      log(
        'warn',
        `${name}: ${marks} is not on tmpfs: every heartbeat is a disk write; mount host.state as tmpfs`,
      );
  })();

  async function lastMark(): Promise<number | undefined> {
    return (
      Number((await readFile(path.join(marks, name), 'utf8').catch(() => '')).trim()) || undefined
    );
  }

  const beat: Heartbeat = startHeartbeat({
    dir: marks,
    slot: name,
    everyMs: options.everyMs ?? 1000,
    healthy: () => {
      const now = options.healthy();
      // transitions only: a log line per tick would bury the one that matters
      if (wasHealthy !== undefined && now !== wasHealthy)
        log(
          now ? 'info' : 'warn',
          `${name}: ${now ? 'healthy again' : 'stale: its loop stopped saying it is healthy'}`,
        );
      wasHealthy = now;
      return now;
    },
    onError: (e) =>
      log(
        'error',
        `${name}: cannot write its mark: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
      ),
  });
  return { stop: () => beat.stop(), ready };
}

async function onTmpfs(dir: string): Promise<boolean> {
  try {
    return (await statfs(dir)).type === TMPFS_MAGIC;
  } catch {
    return true; // cannot tell: say nothing rather than something wrong
  }
}
