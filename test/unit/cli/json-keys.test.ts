import { describe, expect, it } from 'vitest';
import { keyedByUserData, snakeKey, toJsonShape } from '../../../src/cli/json-keys.js';

describe('the JSON edge’s key naming', () => {
  it('turns camelCase into snake_case and leaves snake_case, kebab-case and digits alone', () => {
    expect(snakeKey('leftDrained')).toBe('left_drained');
    expect(snakeKey('elapsedMs')).toBe('elapsed_ms');
    expect(snakeKey('HTTPStatus')).toBe('http_status');
    expect(snakeKey('config_sha256')).toBe('config_sha256');
    expect(snakeKey('sha256')).toBe('sha256');
    expect(snakeKey('await-out')).toBe('await-out');
  });

  it('converts keys at every depth, inside arrays too', () => {
    expect(
      toJsonShape({ notReached: ['web-2'], hosts: [{ leftDrained: true, stoppedAt: 'verify' }] }),
    ).toEqual({ not_reached: ['web-2'], hosts: [{ left_drained: true, stopped_at: 'verify' }] });
  });

  it('names unit-less durations …_ms and prints every …_ms as whole milliseconds', () => {
    expect(
      toJsonShape({ interval: 5000, hostWindow: 27_500, latencyMs: 12.6, offset_ms: 0.4 }),
    ).toEqual({ interval_ms: 5000, host_window_ms: 27_500, latency_ms: 13, offset_ms: 0 });
  });

  it('keeps the keys of a map keyed by user data and converts what is inside', () => {
    const services = keyedByUserData({ apiServer: { gaveUp: true }, 'web-Worker': {} });
    expect(toJsonShape({ watchdog: { services } })).toEqual({
      watchdog: { services: { apiServer: { gave_up: true }, 'web-Worker': {} } },
    });
  });

  it('keeps the keys of a Map, which are data by nature', () => {
    const states = new Map([['webServer', { inRotation: false }]]);
    expect(toJsonShape({ states })).toEqual({ states: { webServer: { in_rotation: false } } });
  });

  it('drops undefined fields and prints a Date as JSON.stringify would', () => {
    const at = new Date('2026-11-30T23:00:00Z');
    expect(toJsonShape({ at, gone: undefined, none: null })).toEqual({
      at: '2026-11-30T23:00:00.000Z',
      none: null,
    });
  });
});
