/**
 * The headers of the drain handshake, shared by the health library and
 * handoff's own checks (src/host/checks): one spelling for both sides.
 */

/** on a 503: draining on purpose, not broken */
export const DRAINING_HEADER = 'x-handoff-draining';
/** sent by handoff's checks (verify, confirm, the watchdog): "tell me your real readiness" */
export const VERIFY_HEADER = 'x-handoff-verify';
/** on the answer to such a check: this status is the readiness, not the drain */
export const VERIFIED_HEADER = 'x-handoff-verified';
/** the release the answering process runs */
export const RELEASE_HEADER = 'x-release';
/** with the verify header: the contents of `<host.state>/verify-token`, so a stranger cannot ask */
export const VERIFY_TOKEN_HEADER = 'x-handoff-token';
/** in host.state: written by handoff's first check, read by a `statusOnly` service */
export const VERIFY_TOKEN_FILE = 'verify-token';
