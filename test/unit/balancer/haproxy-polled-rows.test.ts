import { describe, expect, it } from 'vitest';
import { parseServersState } from '../../../src/balancer/haproxy/servers-state.js';
import { parseStatCsv, splitCsv, StatLines } from '../../../src/balancer/haproxy/stat-csv.js';
import { toTargetState } from '../../../src/balancer/haproxy/target-state.js';
import * as fixture from './fixtures/haproxy-2.6.js';

function rows<T>(parsed: { ok: true; rows: T[] } | { ok: false; reason: string }): T[] {
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.rows;
}

/** the fixture with web-10, a copy of web-2 (down), listed before web-1 */
const stat = fixture.statSteady.replace(
  '\nbe_app,web-1,',
  `\n${/\nbe_app,web-2,[^\n]*/.exec(fixture.statSteady)?.[0].slice(1).replace('web-2', 'web-10')}\nbe_app,web-1,`,
);
const servers = fixture.serversStateSteady.replace(
  '\n3 be_app 1 web-1 ',
  '\n3 be_app 5 web-10 127.0.0.1 0 0 1 1 1 8 2 0 6 0 0 0 - 1 - 0 0 - - 0\n3 be_app 1 web-1 ',
);

/** web-1's check description quoted, as haproxy writes a field with a comma and quotes in it */
const quoted = fixture.statFailing.replace(
  'Layer7 wrong status,,2,3,2',
  '"Layer7 wrong status, says ""no""",,2,3,2',
);

describe('a poll parses the rows of the servers it asks for, not the others', () => {
  it('reads the same rows as the whole parse, for the servers asked', () => {
    const all = rows(parseStatCsv(stat));
    const asked = new Set(['web-2', 'web-4']);
    expect(rows(parseStatCsv(stat, asked))).toEqual(all.filter((r) => asked.has(r.server)));
    const states = rows(parseServersState(servers));
    expect(rows(parseServersState(servers, asked))).toEqual(
      states.filter((r) => asked.has(r.server)),
    );
  });

  it('tells a server from another whose name it begins (web-1, web-10)', () => {
    const one = new Set(['web-1']);
    expect(rows(parseStatCsv(stat, one)).map((r) => [r.server, r.status])).toEqual([
      ['web-1', 'UP'],
    ]);
    expect(rows(parseServersState(servers, one))).toEqual([
      { backend: 'be_app', server: 'web-1', opState: 2, adminState: 0, checkState: 6 },
    ]);
    const ten = new Set(['web-10']);
    expect(rows(parseStatCsv(stat, ten)).map((r) => [r.server, r.status])).toEqual([
      ['web-10', 'DOWN'],
    ]);
    expect(rows(parseServersState(servers, ten)).map((r) => [r.server, r.opState])).toEqual([
      ['web-10', 0],
    ]);
  });

  it('reads a quoted field of a server asked, and the row after it by its commas', () => {
    const parsed = rows(parseStatCsv(quoted, new Set(['web-1', 'web-2'])));
    expect(parsed.map((r) => [r.server, r.checkDesc, r.rise, r.fall])).toEqual([
      ['web-1', 'Layer7 wrong status, says "no"', 2, 3],
      ['web-2', 'Layer4 connection problem', 2, 3],
    ]);
  });

  it('finds no row for a server the backend does not have: the target is not in it', () => {
    const none = new Set(['web-9']);
    expect(rows(parseStatCsv(stat, none))).toEqual([]);
    expect(rows(parseServersState(servers, none))).toEqual([]);
    expect(toTargetState('web-9', 'be_app', undefined, undefined)).toMatchObject({
      inRotation: false,
      reason: 'not in backend be_app',
    });
  });

  it("does not read a row it was not asked for: another server's garbage fails no poll", () => {
    const broken = servers.replace('be_app 2 web-2 127.0.0.1 0 0', 'be_app 2 web-2 127.0.0.1 x 0');
    expect(parseServersState(broken)).toMatchObject({ ok: false });
    expect(rows(parseServersState(broken, new Set(['web-1']))).map((r) => r.server)).toEqual([
      'web-1',
    ]);
  });

  it('reads CRLF, indented, blank and comment lines as the whole split and trim does', () => {
    const lines = servers.split('\n');
    const messy = [
      ...lines.slice(0, 2).map((l) => `${l}\r`),
      '  ',
      '# a comment haproxy may add',
      ...lines.slice(2).map((l, i) => (i % 2 === 0 ? `\t ${l}\r` : l)),
    ].join('\n');
    const whole = rows(parseServersState(servers));
    expect(rows(parseServersState(messy))).toEqual(whole);
    const asked = new Set(['web-1', 'web-3']);
    expect(rows(parseServersState(messy, asked))).toEqual(whole.filter((r) => asked.has(r.server)));
    expect(parseServersState(' 1 \n')).toEqual({ ok: false, reason: 'no column header' });
    expect(parseServersState('')).toEqual({ ok: false, reason: 'not format version 1' });
  });

  it('still refuses an answer that is not the dump, whatever it asks for', () => {
    expect(parseStatCsv('No such proxy.\n', new Set(['web-1']))).toEqual({
      ok: false,
      reason: 'no CSV header',
    });
    expect(parseServersState("Can't find backend.\n", new Set(['web-1']))).toEqual({
      ok: false,
      reason: 'not format version 1',
    });
  });
});

describe('StatLines', () => {
  it("gives each line's fields as splitCsv does, quoted or not, found by commas or split", () => {
    const text = `${quoted}be_app,BACKEND,0,0\n\n  \nx`;
    const lines = new StatLines(text);
    const split = text.split('\n');
    for (const [i, line] of split.entries()) {
      expect(lines.next()).toBe(true);
      expect(lines.line()).toBe(line);
      expect(lines.blank()).toBe(line.trim() === '');
      const fields = splitCsv(line);
      // field by field first (by commas where the line quotes nothing), then the split
      for (const column of [-1, 0, 1, 17, 65, fields.length - 1, fields.length])
        expect(lines.field(column), `line ${i} column ${column}`).toBe(fields[column] ?? '');
      expect(lines.fields()).toEqual(fields);
    }
    expect(lines.next()).toBe(false);
  });

  it('reads an empty answer as one empty line, as split does', () => {
    const lines = new StatLines('');
    expect(lines.next()).toBe(true);
    expect(lines.blank()).toBe(true);
    expect(lines.server()).toBe('');
    expect(lines.next()).toBe(false);
  });
});
