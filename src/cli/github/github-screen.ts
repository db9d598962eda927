import type { LogEvent } from '../../log.js';
import type { RolloutResult } from '../../rollout/types.js';
import { printable } from '../../safe-text.js';
import { decorate } from '../progress/paint.js';
import type { Screen } from '../progress/screen.js';
import type { Style, TermStream } from '../progress/style.js';
import { annotation, endGroup, group } from './workflow-commands.js';
import type { KeyLine } from './key-line.js';
import { stepSummary } from './summary.js';

export interface GithubDeps {
  readonly err: TermStream;
  readonly out: TermStream;
  readonly style: Style;
  /** deploy.yml's line for a key such as `drain.overlap` */
  readonly keyLine: (key: string) => KeyLine | undefined;
  /** $GITHUB_STEP_SUMMARY */
  readonly appendSummary?: (markdown: string) => void;
}

interface WaveHost {
  readonly host: string;
  readonly releaseBefore: string | null;
}

export function waveHosts(e: LogEvent): WaveHost[] {
  const hosts = e.fields?.hosts;
  return Array.isArray(hosts) ? (hosts as WaveHost[]) : [];
}

/**
 * GitHub Actions' log: a group per wave (per host when a wave is one host),
 * and after a wave of several hosts, one group per host with its own lines;
 * warnings and errors as annotations (on deploy.yml's line when a key is at
 * fault); the step summary at the end. Never an ANSI escape.
 */
export class GithubScreen implements Screen {
  private open = false;
  /** the hosts of the wave in the open group, when it holds several */
  private batch: Map<string, string[]> | undefined;
  private readonly releaseBefore = new Map<string, string | null>();

  constructor(private readonly deps: GithubDeps) {}

  line(text: string, e?: LogEvent): void {
    if (e?.event === 'wave') this.startWave(e);
    if (e && (e.level === 'warn' || (e.level === 'error' && e.event !== 'step'))) {
      this.deps.err.write(`${this.annotate(e)}\n`);
      return;
    }
    const shown = decorate(this.deps.style, text);
    this.deps.err.write(`${shown}\n`);
    if (e?.host) this.batch?.get(e.host)?.push(shown);
  }

  text(text: string): void {
    this.closeGroup();
    this.deps.out.write(`${decorate(this.deps.style, text)}\n`);
  }

  live(): void {
    // a log is not redrawn: the heartbeats are lines
  }

  close(): void {
    this.closeGroup();
  }

  /** the failed hosts as error annotations, and the step summary */
  finish(r: RolloutResult): void {
    this.closeGroup();
    for (const o of r.hosts.filter((h) => h.result !== 'deployed')) {
      const where = o.stoppedAt ? ` (stopped at ${o.stoppedAt})` : '';
      const error = o.error ?? o.result;
      const message = `${error.startsWith(`${o.host}:`) ? '' : `${o.host}: `}${error}${where}`;
      this.deps.err.write(
        `${annotation('error', printable(message), { title: `${o.host} ${o.result}` })}\n`,
      );
    }
    for (const reason of [r.blocked, r.prepareFailed]) {
      if (reason) this.deps.err.write(`${annotation('error', printable(reason))}\n`);
    }
    this.deps.appendSummary?.(stepSummary(r, this.releaseBefore));
  }

  private annotate(e: LogEvent): string {
    const message = printable(`${e.host ? `${e.host}: ` : ''}${e.message}`);
    // only an invariant's key is deploy.yml's fault; config.env's key was set by a variable
    const key =
      e.event === 'invariant' && typeof e.fields?.key === 'string' ? e.fields.key : undefined;
    const at = key === undefined ? undefined : this.deps.keyLine(key);
    const id = e.fields?.id;
    const title = e.event === 'invariant' && typeof id === 'string' ? `invariant ${id}` : undefined;
    return annotation(e.level === 'warn' ? 'warning' : 'error', message, {
      ...(title ? { title } : {}),
      ...(at ? { file: at.file, line: at.line } : {}),
    });
  }

  private startWave(e: LogEvent): void {
    this.closeGroup();
    const hosts = waveHosts(e);
    for (const h of hosts) this.releaseBefore.set(h.host, h.releaseBefore);
    const { wave, waves } = e.fields ?? {};
    const which = `wave ${String(wave)} of ${String(waves)}`;
    const only = hosts.length === 1 ? hosts[0]?.host : undefined;
    this.deps.err.write(
      `${group(printable(only ? `${only} (${which})` : `${which}: ${hosts.map((h) => h.host).join(', ')}`))}\n`,
    );
    this.open = true;
    this.batch = only ? undefined : new Map(hosts.map((h) => [h.host, []]));
  }

  private closeGroup(): void {
    if (!this.open) return;
    this.deps.err.write(`${endGroup}\n`);
    this.open = false;
    const batch = this.batch;
    this.batch = undefined;
    for (const [host, lines] of batch ?? []) {
      this.deps.err.write(
        `${group(printable(host))}\n${lines.map((l) => `${l}\n`).join('')}${endGroup}\n`,
      );
    }
  }
}
