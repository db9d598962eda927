import { describe, expect, it } from 'vitest';
import {
  parseServersState,
  type ServerStateRow,
} from '../../../src/balancer/haproxy/servers-state.js';
import { parseStatCsv, splitCsv, type StatRow } from '../../../src/balancer/haproxy/stat-csv.js';
import { toTargetState } from '../../../src/balancer/haproxy/target-state.js';
import * as fixture from './fixtures/haproxy-2.6.js';

function rows<T>(parsed: { ok: true; rows: T[] } | { ok: false; reason: string }): T[] {
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.rows;
}

function stateOf(server: string, servers: string, stat: string) {
  const row = rows(parseServersState(servers)).find((r) => r.server === server);
  const statRow = rows(parseStatCsv(stat)).find((r) => r.server === server);
  return toTargetState(server, 'be_app', row, statRow);
}

describe('show servers state', () => {
  it('reads the operational and admin state of every server by column name', () => {
    expect(rows(parseServersState(fixture.serversStateSteady))).toEqual([
      { backend: 'be_app', server: 'web-1', opState: 2, adminState: 0, checkState: 6 },
      { backend: 'be_app', server: 'web-2', opState: 0, adminState: 0, checkState: 6 },
      { backend: 'be_app', server: 'web-3', opState: 2, adminState: 8, checkState: 6 },
      { backend: 'be_app', server: 'web-4', opState: 0, adminState: 1, checkState: 14 },
    ]);
  });

  it('refuses an answer that is not format version 1', () => {
    expect(parseServersState("Can't find backend.\n")).toEqual({
      ok: false,
      reason: 'not format version 1',
    });
  });

  it('refuses a header without the state columns', () => {
    expect(parseServersState('1\n# be_id be_name srv_name\n')).toEqual({
      ok: false,
      reason: 'no column srv_op_state, srv_admin_state, srv_check_state',
    });
  });

  it('refuses a row whose states are not numbers', () => {
    const text = fixture.serversStateSteady.replace(
      'be_app 1 web-1 127.0.0.1 2 0',
      'be_app 1 web-1 127.0.0.1 x 0',
    );
    expect(parseServersState(text)).toMatchObject({ ok: false });
  });
});

describe('show stat', () => {
  it('reads status, check and the live rise and fall of every server', () => {
    expect(rows(parseStatCsv(fixture.statFailing))[0]).toEqual({
      backend: 'be_app',
      server: 'web-1',
      status: 'UP 1/3',
      checkStatus: 'L7STS',
      checkCode: '503',
      checkDesc: 'Layer7 wrong status',
      rise: 2,
      fall: 3,
    });
  });

  it('leaves out the BACKEND summary row', () => {
    const text = `${fixture.statSteady}be_app,BACKEND,0,0\n`;
    expect(rows(parseStatCsv(text)).map((r) => r.server)).toEqual([
      'web-1',
      'web-2',
      'web-3',
      'web-4',
    ]);
  });

  it('refuses an answer without the CSV header', () => {
    expect(parseStatCsv('No such proxy.\n')).toEqual({ ok: false, reason: 'no CSV header' });
  });

  it('splits a line that quotes nothing the same way, empty fields kept', () => {
    expect(splitCsv('be_api,web-1,,UP 1/2,')).toEqual(['be_api', 'web-1', '', 'UP 1/2', '']);
    expect(splitCsv('')).toEqual(['']);
  });

  it('splits quoted fields that hold commas and quotes', () => {
    expect(splitCsv('a,"b, c","say ""hi""",')).toEqual(['a', 'b, c', 'say "hi"', '']);
  });
});

describe('a server as a target', () => {
  it('is healthy and in rotation when it is up', () => {
    expect(stateOf('web-1', fixture.serversStateSteady, fixture.statSteady)).toEqual({
      target: 'web-1',
      state: 'healthy',
      inRotation: true,
    });
  });

  it('is unhealthy and out of rotation when it is down, with the failed check as reason', () => {
    expect(stateOf('web-2', fixture.serversStateSteady, fixture.statSteady)).toEqual({
      target: 'web-2',
      state: 'unhealthy',
      inRotation: false,
      reason: 'DOWN: L4CON (Layer4 connection problem)',
    });
  });

  it('is draining and out of rotation when it was set to drain, even while its checks pass', () => {
    expect(stateOf('web-3', fixture.serversStateSteady, fixture.statSteady)).toEqual({
      target: 'web-3',
      state: 'draining',
      inRotation: false,
      reason: 'set to drain through the runtime API; check: L7OK 200 (Layer7 check passed)',
    });
  });

  it('is unused and out of rotation in maintenance, saying how to take it back', () => {
    expect(stateOf('web-4', fixture.serversStateSteady, fixture.statSteady)).toEqual({
      target: 'web-4',
      state: 'unused',
      inRotation: false,
      reason: "in maintenance (MAINT); 'set server be_app/web-4 state ready' takes it back",
    });
  });

  it('stays in rotation while failing fewer checks than fall, with the count as reason', () => {
    expect(stateOf('web-1', fixture.serversStateFailing, fixture.statFailing)).toEqual({
      target: 'web-1',
      state: 'healthy',
      inRotation: true,
      reason: 'failing checks (UP 1/3): L7STS 503 (Layer7 wrong status)',
    });
  });

  it('is unused when the backend has no server of that name', () => {
    expect(toTargetState('web-9', 'be_x', undefined, undefined)).toEqual({
      target: 'web-9',
      state: 'unused',
      inRotation: false,
      reason: 'not in backend be_x',
    });
  });

  const row = (opState: number, checkState = 6): ServerStateRow => ({
    backend: 'be_x',
    server: 'web-1',
    opState,
    adminState: 0,
    checkState,
  });
  const stat = (status: string): StatRow => ({
    backend: 'be_x',
    server: 'web-1',
    status,
    checkStatus: '',
    checkCode: '',
    checkDesc: '',
  });

  it('is in rotation but initial while warming up in slowstart', () => {
    expect(toTargetState('web-1', 'be_x', row(1), stat('UP'))).toMatchObject({
      state: 'initial',
      inRotation: true,
    });
  });

  it('is draining and out of rotation while soft-stopping (NOLB)', () => {
    expect(toTargetState('web-1', 'be_x', row(3), stat('NOLB'))).toEqual({
      target: 'web-1',
      state: 'draining',
      inRotation: false,
      reason: 'soft-stopping (NOLB)',
    });
  });

  it('warns that a server without health checks can never be taken out by its health', () => {
    expect(toTargetState('web-1', 'be_x', row(2, 0), stat('no check'))).toEqual({
      target: 'web-1',
      state: 'healthy',
      inRotation: true,
      reason: 'health checks are off for this server: haproxy will not take it out when it drains',
    });
  });
});
