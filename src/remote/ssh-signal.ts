import type { ClientChannel } from 'ssh2';

interface ChannelInternals {
  readonly outgoing?: { readonly id: number; readonly state: string };
  readonly _client?: { readonly _protocol?: { signal(id: number, name: string): void } };
}

/**
 * Sends an SSH `signal` request for the process behind an exec channel.
 * ssh2's `channel.signal()` silently sends nothing once our side has sent EOF,
 * and nearly every command runs with stdin already closed, so a timeout would
 * never reach `sleep 3600`. The request is valid after EOF (RFC 4254 §5.3:
 * EOF only ends our data), so it goes out through the session's protocol
 * object, and falls back to the public method if that ever moves.
 */
export function sendSignal(channel: ClientChannel, name: 'KILL' | 'TERM'): void {
  const internals = channel as unknown as ChannelInternals;
  const state = internals.outgoing?.state;
  const protocol = internals._client?._protocol;
  try {
    if (internals.outgoing && protocol && (state === 'open' || state === 'eof'))
      protocol.signal(internals.outgoing.id, name);
    else channel.signal(name);
  } catch {
    // the channel is already closing: nothing left to signal
  }
}
