import type { Duplex } from 'node:stream';
import type { Client, ClientChannel, SFTPWrapper } from 'ssh2';
import type { Clock } from '../clock.js';
import { HostUnreachableError, OperationError, messageOf } from '../errors.js';
import { describeCommand } from './command-errors.js';
import { quoteArgv } from './quote.js';
import { sftpPut } from './sftp-put.js';
import { sftpUpload, type UploadOptions } from './sftp-upload.js';
import { connectionLost } from './ssh-errors.js';
import { execOnChannel } from './ssh-exec.js';
import { pendingProcess } from './ssh-process.js';
import type { ExecOptions, ExecResult, FileOwner, RemoteProcess, Transport } from './transport.js';

/**
 * Every call to one host over its one SSH connection: each exec and spawn is a
 * channel of it, every put goes through one SFTP session opened on first use.
 * Once the connection drops, every call fails fast with HostUnreachableError;
 * the caller decides whether to reconnect.
 */
export class SshTransport implements Transport {
  private sftp: Promise<SFTPWrapper> | undefined;
  private dropped = false;
  private readonly closed: Promise<void>;

  constructor(
    readonly host: string,
    private readonly client: Client,
    private readonly bastion: Client | undefined,
    private readonly clock: Clock,
  ) {
    this.closed = new Promise((resolve) =>
      client.once('close', () => {
        this.dropped = true;
        bastion?.end();
        resolve();
      }),
    );
  }

  async exec(argv: readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    options.signal?.throwIfAborted();
    const run = { host: this.host, argv, clock: this.clock, options };
    return await this.openExec(argv, quoteArgv(argv), (channel) => execOnChannel(channel, run));
  }

  spawn(argv: readonly string[]): RemoteProcess {
    const { process, attach, fail } = pendingProcess();
    this.openExec(argv, quoteArgv(argv), attach).catch(fail);
    return process;
  }

  async put(
    path: string,
    content: string | Uint8Array,
    mode = 0o644,
    owner?: FileOwner,
  ): Promise<void> {
    const sftp = await this.openSftp();
    try {
      await sftpPut(sftp, path, content, mode, owner);
    } catch (error) {
      if (this.dropped) throw connectionLost(this.host, `while writing ${path}`);
      throw new OperationError(`${this.host}: cannot write ${path}: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }

  async upload(localPath: string, path: string, options: UploadOptions = {}): Promise<void> {
    const sftp = await this.openSftp();
    try {
      await sftpUpload(sftp, localPath, path, options);
    } catch (error) {
      if (this.dropped) throw connectionLost(this.host, `while uploading ${path}`);
      throw new OperationError(`${this.host}: cannot upload ${path}: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }

  /**
   * A stream to a unix socket on the host (OpenSSH's streamlocal forwarding,
   * `direct-streamlocal@openssh.com`): a balancer's admin socket spoken to where it
   * is, never put on the network. sshd allows it unless `AllowStreamLocalForwarding
   * no` (or `DisableForwarding yes`) says otherwise.
   */
  openStreamLocal(socketPath: string): Promise<Duplex> {
    if (this.dropped)
      return Promise.reject(connectionLost(this.host, `before opening ${socketPath}`));
    return new Promise((resolve, reject) => {
      this.client.openssh_forwardOutStreamLocal(socketPath, (error, channel) => {
        if (!error) return resolve(channel);
        reject(
          this.dropped
            ? connectionLost(this.host, `while opening ${socketPath}`)
            : new HostUnreachableError(
                this.host,
                `sshd would not open unix socket ${socketPath} (${error.message}): the socket must exist there, and sshd_config must allow AllowStreamLocalForwarding (yes by default; not with DisableForwarding yes)`,
              ),
        );
      });
    });
  }

  async close(): Promise<void> {
    this.client.end();
    await this.closed;
  }

  private openExec<T>(
    argv: readonly string[],
    command: string,
    use: (channel: ClientChannel) => T | PromiseLike<T>,
  ): Promise<T> {
    const what = `running '${describeCommand(argv)}'`;
    return this.openChannel(what, (cb) => this.client.exec(command, cb), use);
  }

  private openSftp(): Promise<SFTPWrapper> {
    if (this.sftp === undefined) {
      const opening = this.openChannel(
        'opening SFTP',
        (cb: (error: Error | undefined, sftp: SFTPWrapper) => void) => this.client.sftp(cb),
        (sftp) => sftp,
      );
      // a failed attempt is not kept: the next put tries again
      opening.catch(() => {
        if (this.sftp === opening) this.sftp = undefined;
      });
      this.sftp = opening;
    }
    return this.sftp;
  }

  /**
   * `use` runs inside ssh2's callback, before the event loop turns: a command
   * that exits at once may deliver its exit status in the same packet batch as
   * the channel confirmation, and a listener added a tick later misses it.
   */
  private openChannel<C, T>(
    what: string,
    start: (cb: (error: Error | undefined, channel: C) => void) => void,
    use: (channel: C) => T | PromiseLike<T>,
  ): Promise<T> {
    if (this.dropped) return Promise.reject(connectionLost(this.host, `before ${what}`));
    return new Promise((resolve, reject) => {
      const refuse = (error: Error): void =>
        reject(
          this.dropped
            ? connectionLost(this.host, `while ${what}`)
            : new HostUnreachableError(
                this.host,
                `sshd refused a session for ${what} (${error.message}); check MaxSessions and the sshd log`,
              ),
        );
      try {
        start((error, channel) => (error ? refuse(error) : resolve(use(channel))));
      } catch (error) {
        refuse(error as Error);
      }
    });
  }
}
