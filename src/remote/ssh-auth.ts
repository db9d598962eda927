import { readFile } from 'node:fs/promises';
import ssh2 from 'ssh2';
import { UsageError, messageOf } from '../errors.js';
import type { SshConfig } from '../config/types.js';

/** What ssh2 should authenticate with, and how to name it in an error. */
export interface SshAuth {
  readonly privateKey?: Buffer;
  readonly agent?: string;
  readonly describe: string;
}

/**
 * identity_file when it is set and readable without a passphrase; otherwise
 * ssh-agent. A passphrase-protected key is only usable through the agent
 * (handoff never prompts: it runs from CI and cron), so without an agent that
 * is a clear error here rather than an opaque auth failure on every host.
 */
export async function resolveAuth(
  ssh: SshConfig,
  env: Readonly<Record<string, string | undefined>>,
): Promise<SshAuth> {
  const agent = env.SSH_AUTH_SOCK || undefined;
  if (ssh.identityFile === undefined) {
    if (agent) return { agent, describe: `ssh-agent at ${agent}` };
    throw new UsageError(
      'no ssh.identity_file is set and no ssh-agent is running (SSH_AUTH_SOCK is empty): set identity_file in deploy.yml or start an agent and ssh-add your key',
    );
  }
  let privateKey: Buffer;
  try {
    privateKey = await readFile(ssh.identityFile);
  } catch (error) {
    throw new UsageError(
      `cannot read ssh.identity_file ${ssh.identityFile}: ${(error as NodeJS.ErrnoException).code ?? messageOf(error)}; fix the path in deploy.yml`,
    );
  }
  const parsed = ssh2.utils.parseKey(privateKey);
  if (parsed instanceof Error) {
    if (/passphrase/i.test(parsed.message)) {
      if (agent)
        return {
          agent,
          describe: `ssh-agent at ${agent} (${ssh.identityFile} is passphrase-protected)`,
        };
      throw new UsageError(
        `ssh.identity_file ${ssh.identityFile} is protected by a passphrase and no ssh-agent is running (SSH_AUTH_SOCK is empty): run 'eval "$(ssh-agent)" && ssh-add ${ssh.identityFile}' first`,
      );
    }
    throw new UsageError(
      `ssh.identity_file ${ssh.identityFile} is not a private key ssh2 can read (${parsed.message}); point it at an OpenSSH private key`,
    );
  }
  return { privateKey, describe: `identity_file ${ssh.identityFile}` };
}
