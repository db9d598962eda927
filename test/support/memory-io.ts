import { systemClock } from '../../src/clock.js';
import type { Config } from '../../src/config/types.js';
import type { AgentIO } from '../../src/host/agent/io.js';
import { serveAgentOp, type AgentArgs } from '../../src/host/agent/server.js';
import type { AgentLine } from '../../src/protocol/lines.js';

/** Stdin the test feeds line by line; stdout collected as protocol lines. */
export function memoryIO() {
  const lines: AgentLine[] = [];
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const io: AgentIO = {
    send: (line) => void lines.push(line),
    input: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          if (queue.length > 0) yield queue.shift()!;
          else if (closed) return;
          else await new Promise<void>((r) => (wake = r));
        }
      },
    },
  };
  return {
    io,
    lines,
    write: (l: string) => (queue.push(l), wake?.()),
    close: () => ((closed = true), wake?.()),
  };
}

/** `lock-hold` with these args, fed and read through memory (stdin is its channel: never read whole) */
export function startSession(config: Config, args: AgentArgs) {
  const m = memoryIO();
  const holding = serveAgentOp('lock-hold', args, {
    config,
    clock: systemClock,
    io: m.io,
    self: __filename,
    readStdin: () => new Promise<string>(() => undefined),
  });
  return { m, holding };
}
