import type { Duplex } from 'node:stream';
import {
  Client,
  type AuthMethod,
  type NoAuthMethod,
  type ParsedKey,
  type PublicKeyAuthMethod,
  type ServerHostKeyAlgorithm,
} from 'ssh2';
import {
  hostToken,
  knownKeyTypes,
  verifyHostKey,
  type HostKeyVerdict,
  type KnownHosts,
} from './known-hosts.js';
import type { SshAuth } from './ssh-auth.js';
import { connectFailed, hostKeyRefused, type Endpoint } from './ssh-errors.js';

export interface OpenOptions {
  readonly knownHosts: KnownHosts;
  readonly auth: SshAuth;
  readonly keepaliveInterval: number;
  /** an already-open stream to the target (a bastion's forwardOut) */
  readonly sock?: Duplex;
}

// ssh2's defaults, strongest first; RSA keys are one known_hosts type but three algorithms
const HOST_KEY_ALGORITHMS: readonly ServerHostKeyAlgorithm[] = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
];

/**
 * Ask first for the key types known_hosts already holds for this host, as
 * OpenSSH does: otherwise a host known by its RSA key would offer its ed25519
 * key and be refused as unknown although nothing is wrong.
 */
export function hostKeyAlgorithms(knownTypes: readonly string[]): ServerHostKeyAlgorithm[] {
  const preferred = HOST_KEY_ALGORITHMS.filter((algorithm) =>
    knownTypes.some((type) =>
      type === 'ssh-rsa' ? algorithm.includes('rsa') : algorithm === type,
    ),
  );
  return [...preferred, ...HOST_KEY_ALGORITHMS.filter((a) => !preferred.includes(a))];
}

/** One SSH session to one endpoint, with strict host-key checking; resolves when ready. */
export function openClient(at: Endpoint, options: OpenOptions): Promise<Client> {
  const client = new Client();
  let refused: Exclude<HostKeyVerdict, { ok: true }> | undefined;
  return new Promise<Client>((resolve, reject) => {
    let failed = false;
    // every error, not once: after a handshake timeout ssh2 emits "Connection lost before
    // handshake" as the socket closes, and an unheard 'error' crashed the whole command
    const fail = (error: Error): void => {
      if (failed) return;
      failed = true;
      client.removeListener('ready', onReady);
      client.end();
      const token = hostToken(at.address, at.port);
      reject(refused ? hostKeyRefused(at, token, refused) : connectFailed(at, error));
    };
    const onReady = (): void => {
      client.removeListener('error', fail);
      // from here on the transport watches the connection; an unheard error must not crash us
      client.on('error', () => undefined);
      // a session is a conversation of short lines (a step, its reply): Nagle's algorithm
      // would hold a line back until the previous one is acknowledged
      client.setNoDelay(true);
      resolve(client);
    };
    client.once('ready', onReady);
    client.on('error', fail);
    client.connect({
      host: at.address,
      port: at.port,
      username: at.user,
      // the key parsed once for every connection, not again by ssh2 for each
      ...(options.auth.key && { authHandler: keyAuth(at.user, options.auth.key) }),
      agent: options.auth.agent,
      sock: options.sock,
      tryKeyboard: false,
      readyTimeout: at.connectTimeout,
      keepaliveInterval: options.keepaliveInterval,
      keepaliveCountMax: 3,
      algorithms: {
        serverHostKey: hostKeyAlgorithms(knownKeyTypes(options.knownHosts, at.address, at.port)),
      },
      hostVerifier: (key: Buffer): boolean => {
        const verdict = verifyHostKey(options.knownHosts, at.address, at.port, key);
        if (!verdict.ok) refused = verdict;
        return verdict.ok;
      },
    });
  });
}

/** what ssh2 does with a `privateKey` ('none' first, then the key), with the key already parsed */
function keyAuth(username: string, key: ParsedKey): AuthMethod[] {
  const none: NoAuthMethod = { type: 'none', username };
  const publickey: PublicKeyAuthMethod = { type: 'publickey', username, key };
  return [none, publickey];
}
