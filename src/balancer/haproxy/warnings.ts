import { readFile } from 'node:fs/promises';
import type { Config, HealthCheckSettings } from '../../config/types.js';
import type { CheckedSettings } from '../kind.js';

const compared: readonly (keyof HealthCheckSettings)[] = [
  'interval',
  'timeout',
  'unhealthyThreshold',
  'healthyThreshold',
  'slowStart',
];

/**
 * What --live warns of beside the invariants: HAProxy instances of one
 * pair (the same backend) that check differently, so one notices a drain
 * later than the other; and drain.method deregister on an HAProxy whose
 * config keeps no server-state file, so a reload puts a drained server back.
 */
export async function haproxyWarnings(
  config: Config,
  settings: readonly CheckedSettings[],
): Promise<string[]> {
  const haproxies = config.balancers.filter((b) => b.kind === 'haproxy');
  const warnings: string[] = [];
  const byName = new Map(settings.map((s) => [s.name, s.settings]));
  const [first, ...rest] = haproxies;
  for (const other of first ? rest : []) {
    const a = byName.get(first?.name ?? '');
    const b = byName.get(other.name);
    if (!a || !b || other.backend !== first?.backend) continue;
    const differ = compared.filter((k) => a[k] !== b[k]);
    if (differ.length > 0)
      warnings.push(
        `${first.name} and ${other.name} (backend ${other.backend}) check differently (${differ.join(', ')}): the slower one sets the bounds; give both the same settings so a drain is seen at once`,
      );
  }
  const texts = new Map(settings.map((s) => [s.name, s.configText]));
  if (config.drain.method === 'deregister')
    for (const h of haproxies) {
      // as --live read it (over SSH, for one on its own host), else the file here
      const text = texts.get(h.name) ?? (h.ssh ? undefined : await readLocal(h.config));
      const why = serverStateMissing(h.config, text);
      if (why)
        warnings.push(
          `${h.name}: drain.method deregister ${why}: a reload during a deploy puts a drained server back in rotation; set server-state-file and load-server-state-from-file (docs/balancers.md)`,
        );
    }
  return warnings;
}

function readLocal(file: string | undefined): Promise<string> | undefined {
  return file === undefined ? undefined : readFile(file, 'utf8').catch(() => '');
}

function serverStateMissing(
  file: string | undefined,
  text: string | undefined,
): string | undefined {
  if (file === undefined || text === undefined)
    return 'and no balancer config file to tell whether a server-state file is kept';
  const lines = text.split('\n').map((l) => l.replace(/#.*/, '').trim());
  const has = (word: string) => lines.some((l) => l.split(/\s+/)[0] === word);
  if (has('server-state-file') && has('load-server-state-from-file')) return undefined;
  return `without a server-state file in ${file}`;
}
