import { messageOf } from '../../errors.js';
import { appendFileSync } from 'node:fs';
import type { RolloutResult } from '../../rollout/types.js';
import { printable, secretMask } from '../../safe-text.js';
import { annotation } from '../github/workflow-commands.js';
import { keyLocator } from '../github/key-line.js';
import { GithubScreen, waveHosts } from '../github/github-screen.js';
import { stepSummary } from '../github/summary.js';
import type { Output } from '../output.js';
import { ProgressReporter, realTicker, type Ticker } from '../progress/reporter.js';
import { termScreen } from '../progress/screen.js';
import { detectStyle, type TermStream } from '../progress/style.js';
import { toStderr, toStdout } from '../stdio.js';

export interface RolloutOutput extends Output {
  /** after the result is printed: GitHub's annotations for failed hosts and the step summary */
  finish(result: RolloutResult): void;
  /** stops the progress and clears the live lines */
  close(): void;
}

export interface RolloutOutputOptions {
  readonly verbose: boolean;
  readonly configPath: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly err?: TermStream;
  readonly out?: TermStream;
  readonly now?: () => number;
  readonly ticker?: Ticker;
  readonly cwd?: string;
}

/**
 * `deploy rollout`'s output: `--json` as every command's; otherwise the
 * progress reporter on a terminal, a plain log, or GitHub Actions' log.
 */
export function rolloutOutput(base: Output, o: RolloutOutputOptions): RolloutOutput {
  const env = o.env ?? process.env;
  const err = o.err ?? terminal(process.stderr, toStderr);
  if (base.json) return jsonOutput(base, summaryWriter(env.GITHUB_STEP_SUMMARY, err));
  const out = o.out ?? terminal(process.stdout, toStdout);
  const style = detectStyle(env, err);
  const github = style.github
    ? new GithubScreen({
        err,
        out,
        style,
        keyLine: keyLocator(o.configPath, o.cwd ?? process.cwd()),
        appendSummary: summaryWriter(env.GITHUB_STEP_SUMMARY, err),
      })
    : undefined;
  const screen = github ?? termScreen(err, out, style);
  const reporter = new ProgressReporter({
    screen,
    style,
    now: o.now ?? Date.now,
    ticker: o.ticker ?? realTicker,
    verbose: o.verbose,
  });
  return {
    json: false,
    emit: (e) => reporter.emit(e),
    text: (t) => screen.text(printable(t.replace(/\n$/, ''))),
    result: (ok, data) => base.result(ok, data),
    raw: (t) => base.raw(t),
    finish: (r) => github?.finish(r),
    close: () => reporter.close(),
  };
}

/**
 * `--json`: the NDJSON stream as every command's; with $GITHUB_STEP_SUMMARY
 * set (a CI job, the GitHub Action) the same step summary as without it,
 * each host's release before read from the wave events.
 */
function jsonOutput(
  base: Output,
  appendSummary: ((markdown: string) => void) | undefined,
): RolloutOutput {
  const releaseBefore = new Map<string, string | null>();
  return {
    json: true,
    emit: (e) => {
      if (e.event === 'wave')
        for (const h of waveHosts(e)) releaseBefore.set(h.host, h.releaseBefore);
      base.emit(e);
    },
    text: (t) => base.text(t),
    result: (ok, data) => base.result(ok, data),
    raw: (t) => base.raw(t),
    finish: (r) => appendSummary?.(stepSummary(r, releaseBefore)),
    close: () => undefined,
  };
}

/** A process stream written through stdio.ts (a reader gone is not a crash), its size read live. */
function terminal(stream: NodeJS.WriteStream, write: (text: string) => void): TermStream {
  return {
    write,
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
  };
}

function summaryWriter(
  file: string | undefined,
  err: TermStream,
): ((markdown: string) => void) | undefined {
  if (!file) return undefined;
  return (markdown) => {
    try {
      // a host's error in the summary may quote output that carried a secret
      appendFileSync(file, secretMask.mask(markdown));
    } catch (error) {
      const why = messageOf(error);
      const message = `could not append the step summary to ${file}: ${why}`;
      err.write(`${annotation('warning', printable(message))}\n`);
    }
  };
}
