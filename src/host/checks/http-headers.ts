import type { IncomingMessage } from 'node:http';
import { RELEASE_HEADER } from '../../health/headers.js';
import { excerpt } from '../../safe-text.js';

/**
 * The headers of the drain handshake, in one place. A check sends
 * `x-handoff-verify: 1`; a service that knows it (the health library) answers
 * its real readiness with `x-handoff-verified: 1`, also while drained, and
 * names its release in `x-release`. A 503 with `x-handoff-draining: 1` (or
 * `draining` in its body) from any other service is a drain on purpose.
 */
export {
  DRAINING_HEADER,
  VERIFIED_HEADER,
  VERIFY_HEADER,
  VERIFY_TOKEN_HEADER,
} from '../../health/headers.js';

/** What the answer says about the release it runs. */
export type ReleaseClaim =
  | { readonly kind: 'one'; readonly release: string }
  | { readonly kind: 'none' }
  | { readonly kind: 'empty' }
  | { readonly kind: 'several'; readonly releases: readonly string[] };

export function releaseClaim(res: IncomingMessage): ReleaseClaim {
  // headersDistinct keeps repeated headers apart (headers[] joins them with ", ")
  const values = res.headersDistinct[RELEASE_HEADER] ?? [];
  if (values.length === 0) return { kind: 'none' };
  if (values.length > 1) return { kind: 'several', releases: values };
  const value = values[0]?.trim() ?? '';
  return value === '' ? { kind: 'empty' } : { kind: 'one', release: value };
}

/**
 * For display only (compared, a release id is taken whole: ids run to 128
 * characters): a header is the service's text, not ours, and must not flood a
 * log line or carry control characters into a terminal.
 */
export function clip(value: string): string {
  // masked and cut first (safe-text.ts); then any byte outside printable ASCII, but the cut's mark
  return excerpt(value, 128).replace(/[^\x20-\x7e…]/g, '?');
}

/** `answers v2, expected v4`, or null when the claim is the expected release. */
export function releaseMismatch(claim: ReleaseClaim, expected: string | undefined): string | null {
  if (expected === undefined) return 'no release is live on this host to expect';
  switch (claim.kind) {
    case 'one':
      return claim.release === expected
        ? null
        : `answers ${clip(claim.release)}, expected ${expected}`;
    case 'none':
      return `answers without an x-release header, expected ${expected}`;
    case 'empty':
      return `answers an empty x-release header, expected ${expected}`;
    case 'several':
      return `answers several x-release headers (${claim.releases.map(clip).join(', ')}), expected ${expected}`;
  }
}
