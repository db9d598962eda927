import {
  AgentError,
  AgentIdentityError,
  ExitCode,
  LockHeldError,
  type HandoffError,
  type LockHolder,
} from '../errors.js';
import type { AgentErrorInfo } from '../protocol/lines.js';
import { excerpt } from '../safe-text.js';

/** An agent's refusal as the typed error the orchestrator acts on. */
export function refused(host: string, error: AgentErrorInfo): HandoffError {
  if (error.code === AgentIdentityError.code) return otherAgent(host, error.message);
  if (error.code === 'lock-held') {
    return new LockHeldError(`${host}:lock`, (error as { holder?: LockHolder }).holder);
  }
  return new AgentError(host, error.code, error.message, error.exit);
}

function otherAgent(host: string, what: string): AgentError {
  return new AgentError(
    host,
    AgentIdentityError.code,
    `${what}; run 'deploy setup --hosts ${host}'`,
    ExitCode.blocked,
  );
}

/** `deploy host <op>` ended without a result line: no agent, an old one, or something else there. */
export function noProtocol(
  host: string,
  agent: string,
  op: string,
  code: number,
  stderr: string,
): HandoffError {
  if (code === 127 || /not found|No such file/i.test(stderr)) {
    return new AgentError(
      host,
      'no-agent',
      `no handoff agent at ${agent}; run 'deploy setup --hosts ${host}'`,
      ExitCode.blocked,
    );
  }
  if (/unknown option '--expect-agent'/.test(stderr))
    return otherAgent(
      host,
      'the agent is older than this deploy (it does not know --expect-agent)',
    );
  const hint = excerpt(stderr, 200);
  return new AgentError(
    host,
    'garbage',
    `'deploy host ${op}' answered no handoff protocol result (exit ${code}${hint ? `: ${hint}` : ''}); run 'deploy setup --hosts ${host}'`,
    ExitCode.blocked,
  );
}
