import type { UploadOptions } from './sftp-upload.js';

/**
 * One executor per kind of side effect: every process on a host goes through
 * a Transport (SSH; tests pass fakes). Commands are argv arrays; quoting for a remote
 * shell happens in exactly one place (`quote.ts`).
 */

export interface ExecOptions {
  /** bytes written to the command's stdin, then stdin is closed */
  readonly stdin?: string;
  /** hard limit; the command is killed and the call rejects after it */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface ExecResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A long-running command whose stdin stays open (e.g. `deploy host lock hold`). */
export interface RemoteProcess {
  /** each complete stdout line as it arrives */
  readonly lines: AsyncIterable<string>;
  /** writes exactly `line` to stdin: the caller adds the trailing newline */
  write(line: string): void;
  /** close stdin: the remote side sees EOF */
  end(): void;
  /** resolves with the exit code (or -1 when the connection dropped) */
  readonly exited: Promise<number>;
  kill(): void;
}

/** numeric, as `stat -c '%u %g'` prints them */
export interface FileOwner {
  readonly uid: number;
  readonly gid: number;
}

export interface Transport {
  /** the host name from deploy.yml, for messages */
  readonly host: string;
  exec(argv: readonly string[], options?: ExecOptions): Promise<ExecResult>;
  spawn(argv: readonly string[]): RemoteProcess;
  /** write a file atomically: temp name in the same directory (given `owner`, if any), then rename */
  put(path: string, content: string | Uint8Array, mode?: number, owner?: FileOwner): Promise<void>;
  /** copy a local file to `path` as it is (no rename: the caller names a temp path) */
  upload(localPath: string, path: string, options?: UploadOptions): Promise<void>;
  close(): Promise<void>;
}
