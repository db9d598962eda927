import { describe, expect, it } from 'vitest';
import { HEARTBEAT_MS, ProgressReporter } from '../../../../src/cli/progress/reporter.js';
import { termScreen } from '../../../../src/cli/progress/screen.js';
import { detectStyle } from '../../../../src/cli/progress/style.js';
import { FakeClock } from '../../../support/fake-clock.js';
import { end, FakeTerm, ManualTicker, start, word } from './fake-term.js';

function setup(tty: boolean, env: Record<string, string> = { LANG: 'C.UTF-8' }) {
  const err = new FakeTerm(tty);
  const out = new FakeTerm(tty);
  const clock = new FakeClock();
  const ticker = new ManualTicker();
  const style = detectStyle(env, err);
  const reporter = new ProgressReporter({
    screen: termScreen(err, out, style),
    style,
    now: () => clock.now(),
    ticker,
    verbose: false,
  });
  return { err, out, clock, ticker, reporter };
}

describe('progress on a TTY', () => {
  it('prints the step start, then keeps one live line per waiting host updated against the bound', () => {
    const { err, clock, ticker, reporter } = setup(true);
    reporter.emit(start('web-2', 'await-out', 10_000));
    expect(err.screen()).toEqual(['web-2: await-out…', 'web-2  await-out  0s / 10s']);

    reporter.emit(word('web-2', 'draining'));
    clock.advance(4100);
    ticker.fire();
    expect(err.screen()).toEqual([
      'web-2: await-out…',
      'web-2  await-out  4.1s / 10s  target draining',
    ]);

    reporter.emit(start('web-3', 'stop', 30_000));
    clock.advance(1000);
    ticker.fire();
    expect(err.screen()).toEqual([
      'web-2: await-out…',
      'web-3: stop…',
      'web-2  await-out  5.1s / 10s  target draining',
      'web-3  stop       1.0s / 30s',
    ]);
  });

  it('drops a host’s live line when its step ends, and stops ticking when nothing waits', () => {
    const { err, ticker, reporter } = setup(true);
    reporter.emit(start('web-1', 'overlap', 2000));
    expect(ticker.running).toBe(1);
    reporter.emit(end('web-1', 'overlap'));
    expect(err.screen()).toEqual(['web-1: overlap…', 'web-1: overlap ✓ 1.0s']);
    expect(ticker.running).toBe(0);
  });

  it('keeps the live lines below a result block written to stdout, and clears them on close', () => {
    const { err, out, reporter } = setup(true);
    reporter.emit(start('web-1', 'confirm', 5000));
    reporter.close();
    expect(err.screen()).toEqual(['web-1: confirm…']);
    expect(out.all).toBe('');
  });

  it('shows a step that does not wait (drain) as a start line only', () => {
    const { err, ticker, reporter } = setup(true);
    reporter.emit(start('web-1', 'drain'));
    expect(err.screen()).toEqual(['web-1: drain…']);
    expect(ticker.running).toBe(0);
  });
});

describe('progress in a log (no TTY)', () => {
  it('prints a heartbeat every 10 s for a wait still running, and no cursor movement', () => {
    const { err, clock, ticker, reporter } = setup(false);
    reporter.emit(start('web-2', 'await-in', 30_000));
    reporter.emit(word('web-2', 'unhealthy', 'Target.FailedHealthChecks'));
    clock.advance(HEARTBEAT_MS - 1000);
    ticker.fire();
    expect(err.screen()).toEqual(['web-2: await-in…']);
    clock.advance(1000);
    ticker.fire();
    clock.advance(1000);
    ticker.fire();
    expect(err.screen()).toEqual([
      'web-2: await-in…',
      'web-2  await-in   10s / 30s  target unhealthy (Target.FailedHealthChecks)',
    ]);
    clock.advance(HEARTBEAT_MS);
    ticker.fire();
    expect(err.screen().at(-1)).toBe(
      'web-2  await-in   21s / 30s  target unhealthy (Target.FailedHealthChecks)',
    );
    expect(err.all).not.toContain('\u001b');
  });

  it('prints no heartbeat once the step has ended', () => {
    const { err, clock, ticker, reporter } = setup(false);
    reporter.emit(start('web-1', 'start'));
    reporter.emit(end('web-1', 'start'));
    clock.advance(HEARTBEAT_MS * 2);
    ticker.fire();
    expect(err.screen()).toEqual(['web-1: start…', 'web-1: start ✓ 1.0s']);
  });

  it('hides debug events unless --verbose, but tags warnings and errors', () => {
    const { err, reporter } = setup(false);
    reporter.emit({ level: 'debug', event: 'capacity', message: 'ok: 2 of 3 serve' });
    reporter.emit({ level: 'warn', event: 'invariant', message: 'time-back: slow' });
    reporter.emit({ level: 'error', event: 'unlock', message: 'lock lost', host: 'web-1' });
    expect(err.screen()).toEqual(['WARN time-back: slow', 'ERROR web-1: lock lost']);
  });
});

describe('colour and symbols', () => {
  it('colours ✓ and ✗ and the tags on a TTY', () => {
    const { err, reporter } = setup(true);
    reporter.emit(end('web-1', 'verify', false));
    reporter.emit({ level: 'warn', event: 'x', message: 'careful' });
    expect(err.all).toContain('\u001b[31m✗\u001b[39m');
    expect(err.all).toContain('\u001b[33mWARN\u001b[39m');
  });

  it('writes ASCII under LANG=C, with the marks spelt out', () => {
    const { err, reporter } = setup(false, { LANG: 'C' });
    reporter.emit(end('web-1', 'verify', false));
    reporter.emit(end('web-1', 'undrain'));
    reporter.emit(start('web-1', 'await-in', 1000));
    expect(err.screen()).toEqual([
      'ERROR web-1: verify FAIL 1.0s',
      'web-1: undrain ok 1.0s',
      'web-1: await-in...',
    ]);
  });
});
