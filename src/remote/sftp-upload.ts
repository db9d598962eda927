import type { SFTPWrapper } from 'ssh2';

export interface UploadOptions {
  readonly mode?: number;
  /** bytes sent so far and the file's size, as the transfer goes */
  readonly onProgress?: (sent: number, total: number) => void;
}

/**
 * A local file to `remotePath` through SFTP with many writes in flight
 * (ssh2's fastPut): one request at a time would wait a round trip per 32 KiB.
 * The caller names a temp path; making it the real thing is the host's step.
 */
export function sftpUpload(
  sftp: SFTPWrapper,
  localPath: string,
  remotePath: string,
  options: UploadOptions = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    sftp.fastPut(
      localPath,
      remotePath,
      {
        concurrency: 32,
        chunkSize: 64 * 1024,
        mode: options.mode ?? 0o600,
        step: (sent, _chunk, total) => options.onProgress?.(sent, total),
      },
      (error) => (error ? reject(error) : resolve()),
    );
  });
}
