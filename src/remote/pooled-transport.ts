import type { ConnectionSlots, Holder } from './connection-slots.js';
import type { UploadOptions } from './sftp-upload.js';
import type { ExecOptions, ExecResult, FileOwner, RemoteProcess, Transport } from './transport.js';

/**
 * One host's connection under ssh.max_connections: opened when the first
 * operation needs it and a slot is free, reused by every later one, closed
 * when a queued host needs the slot and nothing runs on it (a running command
 * or a spawned process — a lock holder — keeps it open). The next operation
 * opens it again.
 */
export class PooledTransport implements Transport, Holder {
  private connection: Promise<Transport> | undefined;
  private busy = 0;

  constructor(
    readonly host: string,
    private readonly connect: () => Promise<Transport>,
    private readonly slots: ConnectionSlots,
  ) {}

  exec(argv: readonly string[], options?: ExecOptions): Promise<ExecResult> {
    return this.using((t) => t.exec(argv, options));
  }

  put(path: string, content: string | Uint8Array, mode?: number, owner?: FileOwner): Promise<void> {
    return this.using((t) => t.put(path, content, mode, owner));
  }

  upload(localPath: string, path: string, options?: UploadOptions): Promise<void> {
    return this.using((t) => t.upload(localPath, path, options));
  }

  /** the handle now; the process starts once the connection is open */
  spawn(argv: readonly string[]): RemoteProcess {
    const relay = relayProcess();
    this.take();
    this.open().then(
      (t) => relay.attach(t.spawn(argv)),
      () => relay.fail(),
    );
    void relay.process.exited.then(() => this.give());
    return relay.process;
  }

  async evict(): Promise<void> {
    const open = this.connection;
    this.connection = undefined;
    if (open) await (await open).close();
  }

  async close(): Promise<void> {
    const open = this.connection;
    if (!open) return;
    this.connection = undefined;
    try {
      await (await open).close();
    } finally {
      this.slots.release(this);
    }
  }

  private async using<T>(run: (t: Transport) => Promise<T>): Promise<T> {
    this.take();
    try {
      return await run(await this.open());
    } finally {
      this.give();
    }
  }

  private open(): Promise<Transport> {
    if (this.connection) return this.connection;
    const opening: Promise<Transport> = this.slots.acquire().then(async () => {
      try {
        return await this.connect();
      } catch (error) {
        // a failed connection holds no slot and is not kept: the next call tries again
        if (this.connection === opening) this.connection = undefined;
        this.slots.release();
        throw error;
      }
    });
    this.connection = opening;
    return opening;
  }

  private take(): void {
    this.busy += 1;
    this.slots.markBusy(this);
  }

  private give(): void {
    this.busy -= 1;
    // after the current chain of awaits: the next operation of the same host keeps the connection
    setImmediate(() => {
      if (this.busy === 0 && this.connection) this.slots.markIdle(this);
    });
  }
}

/** A RemoteProcess handed out before the connection that runs it is open. */
function relayProcess(): {
  process: RemoteProcess;
  attach(p: RemoteProcess): void;
  fail(): void;
} {
  const pending: string[] = [];
  let target: RemoteProcess | undefined;
  let ended = false;
  let killed = false;
  let settle: (p: RemoteProcess | undefined) => void = () => undefined;
  const started = new Promise<RemoteProcess | undefined>((resolve) => (settle = resolve));
  const done: IteratorResult<string> = { value: undefined, done: true };
  const process: RemoteProcess = {
    lines: {
      [Symbol.asyncIterator]: () => {
        let lines: AsyncIterator<string> | undefined;
        return {
          next: async () => {
            lines ??= (await started)?.lines[Symbol.asyncIterator]();
            return lines ? lines.next() : done;
          },
        };
      },
    },
    write: (line) => (target ? target.write(line) : void pending.push(line)),
    end: () => {
      ended = true;
      target?.end();
    },
    exited: started.then((p) => (p ? p.exited : -1)),
    kill: () => {
      killed = true;
      target?.kill();
    },
  };
  return {
    process,
    attach: (p) => {
      target = p;
      for (const line of pending.splice(0)) p.write(line);
      if (ended) p.end();
      if (killed) p.kill();
      settle(p);
    },
    fail: () => settle(undefined),
  };
}
