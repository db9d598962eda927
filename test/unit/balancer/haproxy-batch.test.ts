import { describe, expect, it } from 'vitest';
import { splitAnswers } from '../../../src/balancer/haproxy/batch.js';

describe('the answers to several commands on one connection', () => {
  it('are split at the empty line haproxy ends each with', () => {
    // haproxy 2.6's answer to `show info;show servers state be;show stat be 4 -1`, cut down
    const answer =
      'Pid: 1\nUptime_sec: 5\n\n1\n# be_id be_name\n3 be\n\n# pxname,svname\nbe,s1\n\n';
    expect(splitAnswers(answer, 3)).toEqual([
      'Pid: 1\nUptime_sec: 5\n',
      '1\n# be_id be_name\n3 be\n',
      '# pxname,svname\nbe,s1\n',
    ]);
  });

  it('keep an error in its place, and an empty answer (the empty line alone) as empty', () => {
    expect(splitAnswers("Pid: 1\n\nCan't find backend.\n\nNo such proxy.\n\n", 3)).toEqual([
      'Pid: 1\n',
      "Can't find backend.\n",
      'No such proxy.\n',
    ]);
    expect(splitAnswers('\n\nPid: 1\n\n', 3)).toEqual(['', '', 'Pid: 1\n']);
  });

  it('cut short, leave each later command what remained: the whole answer when nothing was split', () => {
    expect(splitAnswers('Pid: 1\n\nPermission denied\n', 3)).toEqual([
      'Pid: 1\n',
      'Permission denied\n',
      'Permission denied\n',
    ]);
    expect(splitAnswers('Pid: 1\n\n', 3)).toEqual(['Pid: 1\n', '', '']);
    expect(splitAnswers('HTTP/1.1 400 Bad Request\r\n\r\n', 2)).toEqual([
      'HTTP/1.1 400 Bad Request\r\n\r\n',
      'HTTP/1.1 400 Bad Request\r\n\r\n',
    ]);
    expect(splitAnswers('', 2)).toEqual(['', '']);
  });
});
