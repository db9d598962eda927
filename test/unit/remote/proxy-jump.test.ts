import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { parseProxyJump } from '../../../src/remote/proxy-jump.js';

describe('parseProxyJump', () => {
  it('takes user, host and port', () => {
    expect(parseProxyJump('ops@bastion.example.com:2222', 'deploy')).toEqual({
      user: 'ops',
      address: 'bastion.example.com',
      port: 2222,
    });
  });

  it('defaults to the ssh user and port 22', () => {
    expect(parseProxyJump('10.0.0.5', 'deploy')).toEqual({
      user: 'deploy',
      address: '10.0.0.5',
      port: 22,
    });
  });

  it('reads a bracketed IPv6 address with a port', () => {
    expect(parseProxyJump('[fd00::1]:2200', 'deploy')).toEqual({
      user: 'deploy',
      address: 'fd00::1',
      port: 2200,
    });
  });

  it.each(['', 'a@', 'host:99999', 'host:x', 'a b', 'host1,host2'])('refuses %j', (spec) => {
    expect(() => parseProxyJump(spec, 'deploy')).toThrow(UsageError);
  });
});
