/**
 * Why a secret could not be fetched, without its value: `missing` (not
 * there, empty, not text: fix deploy.yml or the store, exit 2) or `blocked`
 * (denied, no credentials, unreachable, too slow: fix access and run again,
 * exit 3). resolve.ts prefixes the entry.
 */
export class SecretFetchError extends Error {
  constructor(
    readonly kind: 'missing' | 'blocked',
    message: string,
  ) {
    super(message);
  }
}
