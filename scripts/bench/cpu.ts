import { execa } from 'execa';

/**
 * User + system CPU time of one command and everything it waited for, in ms.
 * bash's `times` reports the children's rusage to the millisecond, where
 * /usr/bin/time rounds to 10 ms, which is a third of a bare `node -e ''`.
 */
export async function cpuTimeMs(
  argv: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ cpuMs: number; code: number; output: string }> {
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = await execa('bash', ['-c', `${quoted} 2>&1; code=$?; times; exit $code`], {
    reject: false,
    // as cron runs a tick: with stdin a pipe from execa, a tick measured three times the CPU
    stdin: 'ignore',
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const lines = String(r.stdout).trimEnd().split('\n');
  const last = lines.at(-1) ?? '';
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(last);
  if (!m) throw new Error(`no CPU times from bash: ${last}`);
  const seconds = (min: string | undefined, sec: string | undefined) =>
    Number(min) * 60 + Number(sec);
  const cpuMs = (seconds(m[1], m[2]) + seconds(m[3], m[4])) * 1000;
  return { cpuMs, code: r.exitCode ?? -1, output: lines.slice(0, -2).join('\n') };
}
