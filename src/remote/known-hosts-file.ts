import { readFile, stat } from 'node:fs/promises';
import { UsageError, messageOf } from '../errors.js';
import { KnownHosts } from './known-hosts.js';

interface Read {
  /** the file as it was read: a new size, mtime or inode is a new file */
  readonly stamp: string;
  readonly known: Promise<KnownHosts>;
}

/**
 * ssh.known_hosts, read and compiled once per file for every connection of
 * the process (a fleet of 500 opened it 500 times, the profile's largest cost
 * of verify), and read again when it changes: `deploy` connecting after a
 * user added a line sees it.
 */
export class KnownHostsFiles {
  private readonly reads = new Map<string, Read>();

  /** A missing file is an empty one: every host is then unknown, with the line to add. */
  async read(path: string): Promise<KnownHosts> {
    let stamp: string;
    try {
      const s = await stat(path);
      stamp = `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new KnownHosts('');
      throw cannotRead(path, error);
    }
    const cached = this.reads.get(path);
    if (cached?.stamp === stamp) return cached.known;
    const read: Read = {
      stamp,
      known: readFile(path, 'utf8').then(
        (text) => new KnownHosts(text),
        (error: unknown) => {
          // not kept: the next connection tries again
          if (this.reads.get(path) === read) this.reads.delete(path);
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new KnownHosts('');
          throw cannotRead(path, error);
        },
      ),
    };
    this.reads.set(path, read);
    return read.known;
  }
}

function cannotRead(path: string, error: unknown): UsageError {
  return new UsageError(`cannot read ssh.known_hosts ${path}: ${messageOf(error)}`);
}

/** the process's one reader: every connectSsh of a command shares it */
export const knownHostsFiles = new KnownHostsFiles();
