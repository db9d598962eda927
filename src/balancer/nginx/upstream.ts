/**
 * The named `upstream` block of an nginx config file: its server lines read,
 * and one of them marked `down` (or not) with every other byte kept. Pure:
 * the adapter reads and writes the file. A server is the address it is
 * written with (`10.0.1.11:8080`), which is the balancer's target for it.
 */

export interface UpstreamServer {
  readonly address: string;
  readonly down: boolean;
  /** 1-based line in the file, for messages */
  readonly line: number;
}

export type Upstream =
  | {
      readonly ok: true;
      readonly servers: readonly UpstreamServer[];
      readonly keepalive: boolean;
      readonly keepaliveTimeout?: string;
    }
  | { readonly ok: false; readonly reason: string };

interface Block {
  /** index of the first line after `upstream NAME {` */
  readonly from: number;
  /** index of the line holding the closing `}` */
  readonly to: number;
}

const serverLine = /^(\s*server\s+)(\S+)([^;#]*);(.*)$/;

function findBlock(lines: readonly string[], name: string): Block | string {
  const open = new RegExp(`^\\s*upstream\\s+${escape(name)}\\s*\\{\\s*(#.*)?$`);
  const from = lines.findIndex((l) => open.test(l));
  if (from < 0) return `no 'upstream ${name} {' line`;
  for (let i = from + 1; i < lines.length; i++) {
    const code = stripComment(lines[i] ?? '');
    if (code.includes('{'))
      return `upstream ${name} has a nested block at line ${i + 1}, which handoff does not edit`;
    if (code.trim() === '}') return { from: from + 1, to: i };
  }
  return `upstream ${name} has no closing '}' on a line of its own`;
}

export function readUpstream(text: string, name: string): Upstream {
  const lines = text.split('\n');
  const block = findBlock(lines, name);
  if (typeof block === 'string') return { ok: false, reason: block };
  const servers: UpstreamServer[] = [];
  let keepalive = false;
  let keepaliveTimeout: string | undefined;
  for (let i = block.from; i < block.to; i++) {
    const code = stripComment(lines[i] ?? '').trim();
    const words = code.replace(/;$/, '').split(/\s+/);
    if (words[0] === 'keepalive') keepalive = true;
    if (words[0] === 'keepalive_timeout') keepaliveTimeout = words[1];
    const m = serverLine.exec(stripComment(lines[i] ?? ''));
    if (!m) continue;
    const params = (m[3] ?? '').trim().split(/\s+/);
    servers.push({ address: m[2] ?? '', down: params.includes('down'), line: i + 1 });
  }
  return {
    ok: true,
    servers,
    keepalive,
    ...(keepaliveTimeout !== undefined && { keepaliveTimeout }),
  };
}

export type Rewrite =
  | { readonly ok: true; readonly text: string; readonly changed: boolean }
  | { readonly ok: false; readonly reason: string };

/** `server ADDRESS …;` in the upstream with `down` added or taken away; nothing else moves. */
export function markDown(text: string, name: string, address: string, down: boolean): Rewrite {
  const lines = text.split('\n');
  const block = findBlock(lines, name);
  if (typeof block === 'string') return { ok: false, reason: block };
  const at: number[] = [];
  for (let i = block.from; i < block.to; i++) {
    const m = serverLine.exec(lines[i] ?? '');
    if (m?.[2] === address) at.push(i);
  }
  if (at.length === 0) return { ok: false, reason: `upstream ${name} has no server ${address}` };
  if (at.length > 1)
    return { ok: false, reason: `upstream ${name} lists server ${address} ${at.length} times` };
  const i = at[0] ?? 0;
  const m = serverLine.exec(lines[i] ?? '');
  if (!m) return { ok: false, reason: `upstream ${name}: cannot read line ${i + 1}` };
  const [, head = '', addr = '', rest = '', tail = ''] = m;
  const params = rest.trim() === '' ? [] : rest.trim().split(/\s+/);
  const isDown = params.includes('down');
  if (isDown === down) return { ok: true, text, changed: false };
  const next = down ? [...params, 'down'] : params.filter((p) => p !== 'down');
  lines[i] = `${head}${addr}${next.map((p) => ` ${p}`).join('')};${tail}`;
  return { ok: true, text: lines.join('\n'), changed: true };
}

function stripComment(line: string): string {
  const hash = line.indexOf('#');
  return hash < 0 ? line : line.slice(0, hash);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
