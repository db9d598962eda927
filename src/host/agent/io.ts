import type { Level } from '../../log.js';
import type { AgentLine } from '../../protocol/lines.js';

/** How an agent operation talks to the orchestrator: protocol lines out, stdin lines in. */
export interface AgentIO {
  send(line: AgentLine): void;
  /** stdin, one line at a time, ending when stdin closes */
  readonly input: AsyncIterable<string>;
  /**
   * Stop reading stdin: a session that ends on its own (its lock lost, silence,
   * SIGTERM) must not wait for the orchestrator to close it, or the process
   * outlives the session and the orchestrator never hears that its holder went.
   */
  endInput?(): void;
}

export function sendEvent(
  io: AgentIO,
  level: Level,
  event: string,
  message: string,
  fields?: Record<string, unknown>,
): void {
  io.send({ type: 'event', level, event, message, ...(fields ? { fields } : {}) });
}
