import type { Config } from '../../config/types.js';
import type { CheckedSettings } from '../kind.js';
import { DEBIAN_MAIN_CONFIG, nginxTime } from './main-config.js';

/**
 * What --live warns of for nginx: every drain and undrain is a reload, and a
 * reload's old workers close their idle client keep-alive connections at
 * once. A client that sends on one just then gets a reset (RFC 9112 §9.3.1):
 * a GET may be sent again on a new connection, a POST may not. nginx 1.27.4+
 * keeps such a connection open for `keepalive_min_timeout` during a graceful
 * shutdown and answers its next request with `Connection: close` instead.
 */
export function nginxWarnings(config: Config, checked: readonly CheckedSettings[]): string[] {
  const texts = new Map(checked.map((s) => [s.name, s.configText]));
  const warnings: string[] = [];
  for (const b of config.balancers) {
    if (b.kind !== 'nginx') continue;
    const text = texts.get(b.name);
    if (text === undefined || setsMinTimeout(text)) continue;
    warnings.push(
      `${b.name}: ${b.mainConfig ?? DEBIAN_MAIN_CONFIG} sets no keepalive_min_timeout: each drain and undrain reloads nginx, which closes idle client keep-alive connections at once, and a request sent on one just then is reset (a client may send a GET again on a new connection, not a POST); on nginx 1.27.4 or later set keepalive_min_timeout (e.g. 1s) in its http block (docs/balancers.md)`,
    );
  }
  return warnings;
}

/** anywhere in the file, above zero (an included file is not read) */
function setsMinTimeout(text: string): boolean {
  return text.split('\n').some((line) => {
    const m = /^\s*keepalive_min_timeout\s+([^;\s]+)\s*;/.exec(line.replace(/#.*$/, ''));
    return (nginxTime(m?.[1] ?? '') ?? 0) > 0;
  });
}
