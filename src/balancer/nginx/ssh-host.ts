import { OperationError } from '../../errors.js';
import type { Transport } from '../../remote/transport.js';
import type { BalancerHost } from '../balancer-host.js';
import { withFileLock } from './file-lock.js';
import type { NginxHost } from './host.js';

/** what of the balancer's SSH host this needs (balancer-host.ts) */
export type RemoteHost = Pick<BalancerHost, 'where' | 'read' | 'close'> & {
  connect(): Promise<Transport>;
};

/**
 * nginx on a balancer host of its own, through that host's one SSH connection:
 * the file read and rewritten there (SFTP: temp file beside it with the
 * original's mode and owner, then rename),
 * `nginx -t` and the reload run there, through `sudo -n` unless the SSH user
 * is root. The edit's lock is `flock` on FILE.flock there (file-lock.ts), held
 * by a process of this connection: a dropped connection releases it.
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
      const st = await ssh.exec(['stat', '-c', '%a %u %g', '--', file]);
      const m = /^([0-7]+) (\d+) (\d+)$/.exec(st.stdout.trim());
      if (st.code !== 0 || !m)
        throw new OperationError(`cannot stat ${file} on ${where}: ${firstLine(st.stderr)}`);
      const [, mode = '', uid, gid] = m;
      await ssh.put(file, text, parseInt(mode, 8), { uid: Number(uid), gid: Number(gid) });
    },
    async run(argv) {
      const ssh = await remote.connect();
      const nginx = argv[0] === 'nginx' && !root;
      return ssh.exec(nginx ? ['sudo', '-n', ...argv] : argv, { timeoutMs: 30_000 });
    },
    async locked(file, fn) {
      const ssh = await remote.connect();
      return withFileLock((argv) => ssh.spawn(argv), file, where, fn);
    },
    close: () => remote.close(),
  };
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] || 'no output';
}
