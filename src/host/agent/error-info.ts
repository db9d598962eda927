import {
  AgentIdentityError,
  ExitCode,
  HandoffError,
  LockHeldError,
  messageOf,
} from '../../errors.js';
import type { AgentErrorInfo } from './protocol.js';

/** Any error as the protocol's error object; a refused lock carries its holder. */
export function errorInfo(error: unknown): AgentErrorInfo & { holder?: unknown } {
  const exit = error instanceof HandoffError ? error.exitCode : ExitCode.failed;
  const code =
    error instanceof LockHeldError
      ? 'lock-held'
      : error instanceof AgentIdentityError
        ? AgentIdentityError.code
        : error instanceof HandoffError
          ? error.name
          : 'internal';
  const message = messageOf(error);
  return {
    code,
    message,
    exit,
    ...(error instanceof LockHeldError && error.holder ? { holder: error.holder } : {}),
  };
}
