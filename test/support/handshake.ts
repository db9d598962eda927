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

/** `ended` of a rollout result for hosts web-1, web-2, … in order. */
export function ended(...releases: (string | null)[]): { host: string; release: string | null }[] {
  return releases.map((release, i) => ({ host: `web-${i + 1}`, release }));
}
