/** The agent calls of one host's full drain handshake to `release`, lock to unlock. */
export function handshake(release: string): string[] {
  return [
    'lock',
    'drain',
    'stop',
    `switch ${release}`,
    'start',
    'verify',
    'undrain',
    // the streak during await-in, and one pass once in rotation
    'confirm',
    'confirm',
    'unlock',
  ];
}
