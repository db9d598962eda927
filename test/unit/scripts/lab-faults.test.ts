import { describe, expect, it } from 'vitest';
import { LabFaults, chainName, faultArgvs, setupArgvs } from '../../../scripts/lab/faults.js';

const W = ['iptables', '-w', '5'];

describe("the lab's network faults, as iptables argv", () => {
  it('one chain per lab subnet, hooked for packets to and from that subnet only', () => {
    expect(chainName('127.0.135')).toBe('HANDOFF-127-0-135');
    expect(setupArgvs('127.0.135')).toEqual([
      [...W, '-N', 'HANDOFF-127-0-135'],
      [...W, '-I', 'OUTPUT', '-d', '127.0.135.0/24', '-j', 'HANDOFF-127-0-135'],
      [...W, '-I', 'OUTPUT', '-s', '127.0.135.0/24', '-j', 'HANDOFF-127-0-135'],
    ]);
  });

  it('a partition of a host drops both directions', () => {
    expect(faultArgvs('127.0.135', { kind: 'drop', address: '127.0.135.3' })).toEqual([
      [...W, '-A', 'HANDOFF-127-0-135', '-d', '127.0.135.3', '-j', 'DROP'],
      [...W, '-A', 'HANDOFF-127-0-135', '-s', '127.0.135.3', '-j', 'DROP'],
    ]);
  });

  it('a cut between two addresses, SSH only, rejects by port', () => {
    expect(
      faultArgvs('127.0.135', {
        kind: 'reject',
        address: '127.0.135.3',
        peer: '127.0.0.1',
        ports: [22],
      }),
    ).toEqual([
      [
        ...W,
        '-A',
        'HANDOFF-127-0-135',
        '-d',
        '127.0.135.3',
        '-s',
        '127.0.0.1',
        '-p',
        'tcp',
        '--dport',
        '22',
        '-j',
        'REJECT',
      ],
      [
        ...W,
        '-A',
        'HANDOFF-127-0-135',
        '-s',
        '127.0.135.3',
        '-d',
        '127.0.0.1',
        '-p',
        'tcp',
        '--sport',
        '22',
        '-j',
        'REJECT',
      ],
    ]);
  });

  it('loss drops a share of packets at random', () => {
    const [to] = faultArgvs('127.0.135', {
      kind: 'loss',
      address: '127.0.135.3',
      probability: 0.05,
    });
    expect(to?.slice(-8)).toEqual([
      '-m',
      'statistic',
      '--mode',
      'random',
      '--probability',
      '0.05',
      '-j',
      'DROP',
    ]);
  });

  it('refuses an address outside its subnet, and a loss that is not a share', () => {
    expect(() => faultArgvs('127.0.135', { kind: 'drop', address: '127.0.10.3' })).toThrow(
      /not in the lab subnet 127\.0\.135\.0\/24/,
    );
    expect(() =>
      faultArgvs('127.0.135', { kind: 'loss', address: '127.0.135.3', probability: 5 }),
    ).toThrow(/between 0 and 1/);
  });

  it('opening empties a chain a killed run left, then makes it again', async () => {
    const ran: string[] = [];
    await LabFaults.open('127.0.135', (argv) => {
      ran.push(argv.slice(3).join(' '));
      return Promise.resolve({ exitCode: 0, stderr: '' });
    });
    expect(ran).toEqual([
      '-D OUTPUT -d 127.0.135.0/24 -j HANDOFF-127-0-135',
      '-D OUTPUT -s 127.0.135.0/24 -j HANDOFF-127-0-135',
      '-F HANDOFF-127-0-135',
      '-X HANDOFF-127-0-135',
      '-N HANDOFF-127-0-135',
      '-I OUTPUT -d 127.0.135.0/24 -j HANDOFF-127-0-135',
      '-I OUTPUT -s 127.0.135.0/24 -j HANDOFF-127-0-135',
    ]);
  });
});
