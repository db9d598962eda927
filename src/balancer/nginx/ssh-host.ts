import { OperationError } from '../../errors.js';
import type { Transport } from '../../remote/transport.js';
import type { BalancerHost } from '../balancer-host.js';
import type { NginxHost } from './host.js';

/** what of the balancer's SSH host this needs (balancer-host.ts) */
export type RemoteHost = Pick<BalancerHost, 'where' | 'read' | 'close'> & {
  connect(): Promise<Transport>;
};

// as long as the local lock waits (host.ts): a few seconds of someone else's edit
const LOCK_WAIT_SECONDS = 10;

/**
 * nginx on a balancer host of its own, through that host's one SSH connection:
 * the file read and rewritten there (SFTP: temp file beside it, then rename),
 * `nginx -t` and the reload run there, through `sudo -n` unless the SSH user
 * is root. The edit's lock is `flock` on FILE.flock there, held by a process
 * of this connection: a dropped connection releases it, so it never goes stale.
 */
export function sshNginxHost(remote: RemoteHost, root: boolean): NginxHost {
  const where = remote.where;
  return {
    where,
    async read(file) {
      const r = await remote.read(file);
      if (!r.ok)
        throw new OperationError(`cannot read nginx file ${file} on ${where}: ${r.reason}`);
      return r.text;
    },
    async write(file, text) {
      const ssh = await remote.connect();
      const mode = await ssh.exec(['stat', '-c', '%a', '--', file]);
      if (mode.code !== 0 || !/^[0-7]+$/.test(mode.stdout.trim()))
        throw new OperationError(`cannot stat ${file} on ${where}: ${firstLine(mode.stderr)}`);
      await ssh.put(file, text, parseInt(mode.stdout.trim(), 8));
    },
    async run(argv) {
      const ssh = await remote.connect();
      const nginx = argv[0] === 'nginx' && !root;
      return ssh.exec(nginx ? ['sudo', '-n', ...argv] : argv, { timeoutMs: 30_000 });
    },
    async locked(file, fn) {
      const ssh = await remote.connect();
      const lockFile = `${file}.flock`;
      // cat echoes the line only once flock holds the lock; its EOF releases it
      const holder = ssh.spawn(['flock', '-w', String(LOCK_WAIT_SECONDS), '--', lockFile, 'cat']);
      holder.write('held\n');
      const held = await firstLineOf(holder.lines);
      if (held !== 'held') {
        holder.kill();
        const code = await holder.exited;
        throw new OperationError(
          code === 1
            ? `another edit of ${file} on ${where} holds ${lockFile}; try again`
            : `cannot lock ${lockFile} on ${where} (flock exited ${code}): the SSH user needs write access to its directory`,
        );
      }
      try {
        return await fn();
      } finally {
        holder.end();
        await holder.exited;
      }
    },
    close: () => remote.close(),
  };
}

/** the next line, leaving the stream open (a for-await's return would end it) */
async function firstLineOf(lines: AsyncIterable<string>): Promise<string | undefined> {
  const next = await lines[Symbol.asyncIterator]().next();
  return next.done ? undefined : next.value;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] || 'no output';
}
