import { readFile, stat } from 'node:fs/promises';
import ssh2, { type ParsedKey } from 'ssh2';
import { UsageError, messageOf } from '../errors.js';
import type { SshConfig } from '../config/types.js';

/** What ssh2 should authenticate with, and how to name it in an error. */
export interface SshAuth {
  /** identity_file's key, parsed once for every connection (ssh2 takes it parsed) */
  readonly key?: ParsedKey;
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
  let parsed: ParsedKey | Error;
  try {
    parsed = await keyFiles.read(ssh.identityFile);
  } catch (error) {
    throw new UsageError(
      `cannot read ssh.identity_file ${ssh.identityFile}: ${(error as NodeJS.ErrnoException).code ?? messageOf(error)}; fix the path in deploy.yml`,
    );
  }
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
  return { key: parsed, describe: `identity_file ${ssh.identityFile}` };
}

interface Parse {
  /** the file as it was read: a new size, mtime or inode is a new file */
  readonly stamp: string;
  readonly parsed: Promise<ParsedKey | Error>;
}

/**
 * identity_file read and parsed once per file for every connection of the
 * process (each of 2 000 connections read and parsed it twice: here, then
 * ssh2 again), and again when it changes. A file that cannot be read is not
 * kept: the next connection tries again.
 */
class KeyFiles {
  private readonly parses = new Map<string, Parse>();

  async read(path: string): Promise<ParsedKey | Error> {
    const s = await stat(path);
    const stamp = `${s.ino}:${s.size}:${s.mtimeMs}`;
    const cached = this.parses.get(path);
    if (cached?.stamp === stamp) return cached.parsed;
    const parse: Parse = {
      stamp,
      parsed: readFile(path).then(
        (data) => {
          const key = ssh2.utils.parseKey(data) as ParsedKey | ParsedKey[] | Error;
          // a key file in OpenSSH's format may hold several keys; ssh2 uses the first
          return Array.isArray(key) ? (key[0] ?? new Error('no key in the file')) : key;
        },
        (error: unknown) => {
          if (this.parses.get(path) === parse) this.parses.delete(path);
          throw error;
        },
      ),
    };
    this.parses.set(path, parse);
    return parse.parsed;
  }
}

const keyFiles = new KeyFiles();
