import { describe, expect, it } from 'vitest';
import { hostKeyAlgorithms } from '../../../src/remote/ssh-client.js';

describe('hostKeyAlgorithms', () => {
  it('keeps the default order when known_hosts knows nothing of the host', () => {
    expect(hostKeyAlgorithms([])[0]).toBe('ssh-ed25519');
  });

  it('asks first for the RSA algorithms when only an ssh-rsa key is known', () => {
    expect(hostKeyAlgorithms(['ssh-rsa']).slice(0, 4)).toEqual([
      'rsa-sha2-512',
      'rsa-sha2-256',
      'ssh-rsa',
      'ssh-ed25519',
    ]);
  });

  it('puts every known type ahead of the unknown ones, each exactly once', () => {
    const list = hostKeyAlgorithms(['ecdsa-sha2-nistp256', 'ssh-ed25519']);
    expect(list.slice(0, 2)).toEqual(['ssh-ed25519', 'ecdsa-sha2-nistp256']);
    expect(new Set(list).size).toBe(list.length);
    expect(list).toHaveLength(7);
  });
});
