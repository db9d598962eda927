import type { Clock } from '../../../clock.js';
import type { Config } from '../../../config/types.js';
import { LockHeldError } from '../../../errors.js';
import { acquireHostLock, type HostLock } from '../../lock.js';
import { announceLockIntent, withdrawLockIntent } from '../../lock-intent.js';

/** A watchdog tick holds the lock for seconds: wait it out rather than fail a deploy. */
const WAIT_FOR_WATCHDOG = 60_000;

async function acquire(
  config: Config,
  what: string,
  message: string,
  clock: Clock,
): Promise<HostLock> {
  const started = clock.now();
  let announced = false;
  try {
    for (;;) {
      try {
        return await acquireHostLock(config.host.lock, { what, message, clock });
      } catch (error) {
        const holder = error instanceof LockHeldError ? error.holder : undefined;
        // no holder yet = someone is between taking the lock and writing who they are
        const brief = error instanceof LockHeldError && (!holder || holder.what === 'watchdog');
        if (!brief || clock.now() - started > WAIT_FOR_WATCHDOG) throw error;
        if (!announced) await announceLockIntent(config.host.state, what, clock.now());
        announced = true;
        await clock.sleep(100);
      }
    }
  } finally {
    if (announced) await withdrawLockIntent(config.host.state);
  }
}

/** The host lock as a `lock-hold` session takes it, gives it back and may take it again. */
export interface SessionLock {
  /** the lock held now, if any */
  readonly held: HostLock | undefined;
  /** armed by each take: resolves when the lock held since then goes stale under us */
  readonly compromised: Promise<'compromised'>;
  take(what: string, message: string): Promise<HostLock>;
  /** the host's turn is over: the lock goes, the session stays; false: none was held */
  untake(): Promise<boolean>;
}

export function sessionLock(config: Config, clock: Clock): SessionLock {
  let lock: HostLock | undefined;
  let onCompromised: () => void = () => undefined;
  let compromised = new Promise<'compromised'>(() => undefined);
  return {
    get held() {
      return lock;
    },
    get compromised() {
      return compromised;
    },
    async take(what, message) {
      if (lock) return lock;
      const taken = await acquire(config, what, message, clock);
      compromised = new Promise((resolve) => (onCompromised = () => resolve('compromised')));
      if (taken.signal.aborted) onCompromised();
      taken.signal.addEventListener('abort', onCompromised, { once: true });
      lock = taken;
      return taken;
    },
    async untake() {
      const held = lock;
      if (!held) return false;
      held.signal.removeEventListener('abort', onCompromised);
      compromised = new Promise(() => undefined);
      lock = undefined;
      await held.release();
      return true;
    },
  };
}
