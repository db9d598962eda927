import { describe, expect, it } from 'vitest';
import { HostUnreachableError } from '../../../src/errors.js';
import { connectFailed, type Endpoint } from '../../../src/remote/ssh-errors.js';

const at: Endpoint = {
  host: 'web-1',
  hop: '',
  address: '10.0.1.11',
  port: 22,
  user: 'deploy',
  knownHostsPath: '/home/me/.ssh/known_hosts',
  connectTimeout: 10_000,
  authDescription: 'identity_file /home/me/.ssh/id_ed25519',
};

function failure(message: string, extra: { code?: string; level?: string }): Error {
  return Object.assign(new Error(message), extra);
}

describe('connectFailed', () => {
  it('says what to check when the handshake times out', () => {
    const error = connectFailed(
      at,
      failure('Timed out while waiting for handshake', { level: 'client-timeout' }),
    );
    expect(error).toBeInstanceOf(HostUnreachableError);
    expect(error.message).toBe(
      'web-1: no SSH handshake with 10.0.1.11:22 within 10s; check the address, firewalls and ssh.connect_timeout',
    );
  });

  it('names the user and the key on an authentication failure', () => {
    const error = connectFailed(
      at,
      failure('All configured authentication methods failed', { level: 'client-authentication' }),
    );
    expect(error.message).toMatch(
      /^web-1: authentication as 'deploy' at 10\.0\.1\.11:22 failed with identity_file \/home\/me\/\.ssh\/id_ed25519;/,
    );
  });

  it('names the address it could not resolve', () => {
    const error = connectFailed(
      { ...at, address: 'web-1.invalid' },
      failure('getaddrinfo', { code: 'ENOTFOUND' }),
    );
    expect(error.message).toMatch(/^web-1: cannot resolve web-1\.invalid/);
  });

  it('puts the bastion hop in front of the detail', () => {
    const error = connectFailed(
      { ...at, hop: 'bastion b.example.com: ' },
      failure('connect ECONNREFUSED', { code: 'ECONNREFUSED' }),
    );
    expect(error.message).toMatch(
      /^web-1: bastion b\.example\.com: connection refused at 10\.0\.1\.11:22/,
    );
  });
});
