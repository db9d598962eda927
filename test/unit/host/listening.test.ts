import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { listening, parseListenTarget, parseProcNetTcp } from '../../../src/host/listening.js';

const HEADER =
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
const row = (n: number, local: string, remote: string, st: string) =>
  `   ${n}: ${local} ${remote} ${st} 00000000:00000000 00:00000000 00000000  1000        0 2345${n} 1 0000000000000000 100 0 0 10 0`;

// 127.0.0.1:8080 and 0.0.0.0:22 and 10.0.1.11:8443 listen; one connection to 8080 is established
const TCP = [
  HEADER,
  row(0, '0100007F:1F90', '00000000:0000', '0A'),
  row(1, '00000000:0016', '00000000:0000', '0A'),
  row(2, '0B01000A:20FB', '00000000:0000', '0A'),
  row(3, '0100007F:1F90', '0100007F:C350', '01'),
  '',
].join('\n');

// [::]:8081, [::ffff:127.0.0.1]:8082, [::1]:8083
const ZERO = '0'.repeat(32);
const TCP6 = [
  HEADER,
  row(0, `${ZERO}:1F91`, `${ZERO}:0000`, '0A'),
  row(1, '0000000000000000FFFF00000100007F:1F92', `${ZERO}:0000`, '0A'),
  row(2, '00000000000000000000000001000000:1F93', `${ZERO}:0000`, '0A'),
  '',
].join('\n');

describe('the LISTEN sockets of /proc/net/tcp and tcp6', () => {
  it('reads each address in the host byte order and each port, listening sockets only', () => {
    expect(parseProcNetTcp(TCP, 4)).toEqual([
      { address: '127.0.0.1', port: 8080 },
      { address: '0.0.0.0', port: 22 },
      { address: '10.0.1.11', port: 8443 },
    ]);
    expect(parseProcNetTcp(TCP6, 6)).toEqual([
      { address: '::', port: 8081 },
      { address: '127.0.0.1', port: 8082 },
      { address: '0:0:0:0:0:0:0:1', port: 8083 },
    ]);
  });

  it('skips lines that are not a socket row', () => {
    expect(parseProcNetTcp(`${HEADER}\ngarbage\n   9: XYZ:1F90 0:0 0A\n`, 4)).toEqual([]);
  });

  it('answers per target: the port on that address, or on every address', async () => {
    const read = (path: string) => Promise.resolve(path.endsWith('tcp6') ? TCP6 : TCP);
    expect(
      await listening(
        [
          '8080',
          '10.0.1.11:8443',
          '10.0.1.12:8443',
          '10.0.1.12:22',
          '10.0.1.12:8081',
          '8444',
          '8082',
        ],
        read,
      ),
    ).toEqual({
      '8080': true,
      '10.0.1.11:8443': true,
      // 8443 listens on another address only
      '10.0.1.12:8443': false,
      '10.0.1.12:22': true,
      '10.0.1.12:8081': true,
      '8444': false,
      '8082': true,
    });
  });

  it('cannot tell on a host without /proc/net/tcp: no answer, not a refusal', async () => {
    const missing = () => Promise.reject(Object.assign(new Error('ENOENT'), { code: 'ENOENT' }));
    expect(await listening(['8080'], missing)).toEqual({});
    // a host without IPv6 still answers from tcp
    const v4only = (path: string) => (path.endsWith('tcp6') ? missing() : Promise.resolve(TCP));
    expect(await listening(['8080'], v4only)).toEqual({ '8080': true });
  });

  it('refuses a target that is not PORT or IPV4:PORT, as a usage error', () => {
    expect(parseListenTarget('8080')).toEqual({ port: 8080 });
    expect(parseListenTarget('10.0.1.11:8443')).toEqual({ address: '10.0.1.11', port: 8443 });
    for (const bad of ['0', '70000', 'i-0abc:8443', 'web-1'])
      expect(() => parseListenTarget(bad)).toThrow(UsageError);
  });
});
