import {
  CancelledError,
  ConfigError,
  ExitCode,
  ExitStatus,
  isHandoffError,
  messageOf,
} from '../errors.js';
import { printable } from '../safe-text.js';
import type { JsonFailure } from './json-stream.js';
import { toStderr } from './stdio.js';

export interface Outcome {
  readonly code: number;
  readonly failure?: JsonFailure;
}

/** A command that needs no commander (main.ts, tick-main.ts): ok, or what it threw. */
export async function outcomeOfRun(command: () => Promise<void>): Promise<Outcome> {
  try {
    await command();
    return { code: ExitCode.ok };
  } catch (error) {
    return outcomeOf(error);
  }
}

/** commander's errors, known without loading commander (a tick does not) */
function isCommanderError(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('commander.');
}

/** The exit code for what a command threw, having said why on stderr (commander has said it itself). */
export function outcomeOf(error: unknown): Outcome {
  if (isCommanderError(error)) {
    // commander already printed its message; --help is not an error
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help')
      return { code: ExitCode.ok };
    return {
      code: ExitCode.usage,
      failure: { message: error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ') },
    };
  }
  if (error instanceof ExitStatus)
    return { code: error.code, failure: { message: `exit status ${error.code}` } };
  if (isHandoffError(error)) {
    toStderr(`deploy: ${printable(error.message)}\n`);
    return {
      code: error.exitCode,
      failure: {
        message: error.message,
        ...(error instanceof ConfigError ? { problems: error.problems } : {}),
        ...(error instanceof CancelledError && { cancelled: true as const }),
      },
    };
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  toStderr(`deploy: internal error (a bug in handoff, please report it):\n${printable(detail)}\n`);
  const message = messageOf(error);
  return { code: ExitCode.failed, failure: { message: `internal error: ${message}` } };
}
