/**
 * `show stat <backend> 4 -1`: CSV with a `# pxname,svname,…` header. Only the
 * columns that explain a server's state are kept; columns are found by name.
 */

export interface StatRow {
  readonly backend: string;
  readonly server: string;
  /** UP, DOWN, "UP 1/2", "DOWN 1/2", DRAIN, MAINT, "MAINT (via …)", NOLB, "no check" */
  readonly status: string;
  /** L4CON, L7STS, L7OK, … (empty when the server has no check) */
  readonly checkStatus: string;
  readonly checkCode: string;
  readonly checkDesc: string;
  /** the server's rise and fall, as the running haproxy uses them */
  readonly rise?: number;
  readonly fall?: number;
}

export function parseStatCsv(
  text: string,
): { ok: true; rows: StatRow[] } | { ok: false; reason: string } {
  const lines = text.split('\n');
  const first = lines[0] ?? '';
  if (!first.startsWith('# pxname,svname,')) return { ok: false, reason: 'no CSV header' };
  const index = new Map(splitCsv(first.slice(2)).map((name, i) => [name, i]));
  if (!index.has('status')) return { ok: false, reason: 'no status column' };
  const rows: StatRow[] = [];
  for (const line of lines.slice(1)) {
    if (line.trim() === '') continue;
    const fields = splitCsv(line);
    const at = (name: string): string => fields[index.get(name) ?? -1] ?? '';
    const server = at('svname');
    if (server === 'BACKEND' || server === 'FRONTEND') continue;
    rows.push({
      backend: at('pxname'),
      server,
      status: at('status'),
      checkStatus: at('check_status'),
      checkCode: at('check_code'),
      checkDesc: at('check_desc'),
      rise: count(at('check_rise')),
      fall: count(at('check_fall')),
    });
  }
  return { ok: true, rows };
}

function count(text: string): number | undefined {
  const n = Number(text);
  return text !== '' && Number.isInteger(n) && n > 0 ? n : undefined;
}

/** haproxy quotes a field that holds a comma or a quote, doubling inner quotes */
export function splitCsv(line: string): string[] {
  // most lines quote nothing: one split, not a string grown by every character
  // (a poll parses every server's row of the backend: 2 000 rows of ~100 fields)
  if (!line.includes('"')) return line.split(',');
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields;
}
