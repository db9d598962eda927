import type { Clock } from '../../clock.js';
import { escapeControl, maskUrlPasswords } from '../../safe-text.js';
import { sendEvent, type AgentIO } from './io.js';

/** a progress line longer than this is cut: one terminal line per event */
const MAX_LINE = 160;
/** a tool that redraws its bar many times a second becomes one event a second */
const EVERY_MS = 1_000;
const ALWAYS = /error|denied|not found|unauthorized|manifest unknown/i;

/**
 * A long command's output, relayed to the orchestrator as `event` lines while
 * it runs (a compose pull of a large image can take minutes: a CI log must
 * not sit silent). At most one line a second, every line that names an error,
 * no line twice in a row; control characters escaped, URL passwords masked.
 */
export function progressRelay(
  io: AgentIO,
  clock: Clock,
  event: string,
  prefix: string,
): (line: string) => void {
  let last = -Infinity;
  let previous = '';
  return (raw) => {
    const line = clipLine(escapeControl(maskUrlPasswords(raw.trim())));
    if (line === '' || line === previous) return;
    const now = clock.now();
    const always = ALWAYS.test(line);
    if (now - last < EVERY_MS && !always) return;
    // an error line does not use up the second's line
    if (!always) last = now;
    previous = line;
    sendEvent(io, 'info', event, `${prefix}: ${line}`);
  };
}

function clipLine(line: string): string {
  return line.length <= MAX_LINE ? line : `${line.slice(0, MAX_LINE - 1)}…`;
}
