import { escapeControl, maskUrlPasswords, secretMask } from '../../../safe-text.js';
import { sendEvent, type AgentIO } from '../io.js';

/**
 * A command's output as the orchestrator sees it (`deploy logs`, `deploy
 * exec`): every line an `output` event, with the release's secrets (read into
 * the mask with its `.env`) and URL passwords masked and control characters escaped.
 */
export function outputRelay(io: AgentIO): (line: string) => void {
  return (line) =>
    sendEvent(io, 'info', 'output', escapeControl(maskUrlPasswords(secretMask.mask(line))));
}

/**
 * Aborts when the orchestrator closes the agent's stdin (Ctrl-C there, or its
 * connection gone): what runs for it on the host is stopped then, not left behind.
 */
export function untilStdinEnds(io: AgentIO): { signal: AbortSignal; done(): void } {
  const controller = new AbortController();
  void (async () => {
    for await (const _ of io.input) {
      // the orchestrator says nothing on it: only its end matters
    }
    controller.abort();
  })();
  // a command that ended on its own does not wait for the orchestrator to close stdin
  return { signal: controller.signal, done: () => io.endInput?.() };
}
