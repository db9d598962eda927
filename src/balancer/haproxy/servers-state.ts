/**
 * `show servers state <backend>`: a format-version line ("1"), a `#` header
 * naming the columns, then one space-separated row per server. Columns are
 * found by name, not position, because later haproxy versions append columns.
 */

export interface ServerStateRow {
  readonly backend: string;
  readonly server: string;
  /** 0 stopped, 1 starting, 2 running, 3 stopping */
  readonly opState: number;
  /** a mask of SRV_ADMF_* bits */
  readonly adminState: number;
  /** a mask of CHK_ST_* bits */
  readonly checkState: number;
}

export const OpState = { stopped: 0, starting: 1, running: 2, stopping: 3 } as const;

export const AdminFlag = {
  forcedMaint: 0x01,
  inheritedMaint: 0x02,
  configMaint: 0x04,
  forcedDrain: 0x08,
  inheritedDrain: 0x10,
  resolutionMaint: 0x20,
} as const;
export const maintMask =
  AdminFlag.forcedMaint |
  AdminFlag.inheritedMaint |
  AdminFlag.configMaint |
  AdminFlag.resolutionMaint;
export const drainMask = AdminFlag.forcedDrain | AdminFlag.inheritedDrain;

/** CHK_ST_ENABLED: health checks run on this server */
export const checkEnabled = 0x04;

const required = ['be_name', 'srv_name', 'srv_op_state', 'srv_admin_state', 'srv_check_state'];

/**
 * The rows, or a reason the text is not this dump (the caller names the
 * socket); with `servers`, the rows of those servers only, the others passed
 * over unsplit and unread.
 */
export function parseServersState(
  text: string,
  servers?: ReadonlySet<string>,
): { ok: true; rows: ServerStateRow[] } | { ok: false; reason: string } {
  // a line at a time, as `text.split('\n')` would give them, each trimmed; a row
  // is sliced only when its server is asked for (a poll reads 2 000 rows, keeps few)
  let end = -1;
  let start = 0;
  const next = (): boolean => {
    start = end + 1;
    if (start > text.length) return false;
    const newline = text.indexOf('\n', start);
    end = newline < 0 ? text.length : newline;
    while (start < end && isSpace(text.charCodeAt(start))) start++;
    return true;
  };
  const line = (): string => text.slice(start, end).trim();
  if (!next() || line() !== '1') return { ok: false, reason: 'not format version 1' };
  const second = next() ? line() : '';
  const header = second.startsWith('#') ? second.slice(1).trim().split(/\s+/) : undefined;
  if (!header) return { ok: false, reason: 'no column header' };
  const index = new Map(header.map((name, i) => [name, i]));
  const missing = required.filter((c) => !index.has(c));
  if (missing.length > 0) return { ok: false, reason: `no column ${missing.join(', ')}` };
  const column = (fields: string[], name: string): string => fields[index.get(name) ?? -1] ?? '';
  const nameAt = index.get('srv_name') ?? -1;
  const rows: ServerStateRow[] = [];
  while (next()) {
    if (start === end || text.charCodeAt(start) === 35 /* # */) continue;
    if (servers && !servers.has(wordAt(text, start, end, nameAt))) continue;
    const row = line();
    const fields = row.split(/\s+/);
    const numbers = ['srv_op_state', 'srv_admin_state', 'srv_check_state'].map((c) =>
      Number(column(fields, c)),
    );
    if (fields.length < header.length || numbers.some((n) => !Number.isInteger(n))) {
      return { ok: false, reason: `unreadable row ${JSON.stringify(row.slice(0, 60))}` };
    }
    const [opState = 0, adminState = 0, checkState = 0] = numbers;
    rows.push({
      backend: column(fields, 'be_name'),
      server: column(fields, 'srv_name'),
      opState,
      adminState,
      checkState,
    });
  }
  return { ok: true, rows };
}

/**
 * `text.slice(from, to).split(/\s+/)[n] ?? ''` where `from` is a word's first
 * character, splitting none of the other words
 */
function wordAt(text: string, from: number, to: number, n: number): string {
  let i = from;
  for (let word = 0; word < n; word++) {
    while (i < to && !isSpace(text.charCodeAt(i))) i++;
    while (i < to && isSpace(text.charCodeAt(i))) i++;
  }
  let end = i;
  while (end < to && !isSpace(text.charCodeAt(end))) end++;
  return text.slice(i, end);
}

/** the white space haproxy's dump could hold: space, tab, CR and the rest of ASCII's */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}
