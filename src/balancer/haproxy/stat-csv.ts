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

/**
 * The rows of every server, or with `servers` of those servers only: the
 * other rows are passed over unsplit (a host polling its own server does not
 * pay for the backend's 2 000 rows of ~100 fields).
 */
export function parseStatCsv(
  text: string,
  servers?: ReadonlySet<string>,
): { ok: true; rows: StatRow[] } | { ok: false; reason: string } {
  const lines = new StatLines(text);
  const first = lines.next() ? lines.line() : '';
  if (!first.startsWith('# pxname,svname,')) return { ok: false, reason: 'no CSV header' };
  const index = columnsOf(first);
  if (!index.has('status')) return { ok: false, reason: 'no status column' };
  const rows: StatRow[] = [];
  while (lines.next()) {
    if (lines.blank()) continue;
    const server = lines.server();
    if (server === 'BACKEND' || server === 'FRONTEND') continue;
    if (servers && !servers.has(server)) continue;
    const fields = lines.fields();
    const at = (name: string): string => fields[index.get(name) ?? -1] ?? '';
    rows.push({
      backend: at('pxname'),
      server: at('svname'),
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

/** the header's columns by name: `# pxname,svname,…` */
export function columnsOf(header: string): Map<string, number> {
  return new Map(splitCsv(header.slice(2)).map((name, i) => [name, i]));
}

function count(text: string): number | undefined {
  const n = Number(text);
  return text !== '' && Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * A `show stat` answer read a line at a time, a line split only when asked:
 * a poll reads every line's proxy and server, but splits few of them. HAProxy
 * quotes a field only when it holds a comma or a quote, which proxy and
 * server names never do, so the first two fields are found by their commas.
 */
export class StatLines {
  private start = 0;
  private end = -1;
  private split: string[] | undefined;
  /** the first quote at or after `start`, or -1: a line before it quotes nothing */
  private quote = -2;

  constructor(private readonly text: string) {}

  /** moves to the next line; false after the last */
  next(): boolean {
    // the lines of `text.split('\n')`, the empty one after a last newline included
    this.start = this.end + 1;
    if (this.start > this.text.length) return false;
    const end = this.text.indexOf('\n', this.start);
    this.end = end < 0 ? this.text.length : end;
    this.split = undefined;
    return true;
  }

  line(): string {
    return this.text.slice(this.start, this.end);
  }

  /** nothing but white space, as `line().trim() === ''` */
  blank(): boolean {
    // a line that starts with a name (a printable ASCII character) is not: no slice for it
    const c = this.text.charCodeAt(this.start);
    return !(c > 32 && c < 127) && this.line().trim() === '';
  }

  /** the first field: the proxy's name */
  proxy(): string {
    return this.field(0);
  }

  /** the second field: the server's name, or FRONTEND, BACKEND */
  server(): string {
    return this.field(1);
  }

  /** every field of the line, as `splitCsv(line())` */
  fields(): string[] {
    this.split ??= splitCsv(this.line());
    return this.split;
  }

  /** one field, as `fields()[column] ?? ''`, found by its commas when the line quotes nothing */
  field(column: number): string {
    if (column < 0) return '';
    if (this.split !== undefined || this.quoted()) return this.fields()[column] ?? '';
    let from = this.start;
    for (let i = 0; i < column; i++) {
      const comma = this.text.indexOf(',', from);
      if (comma < 0 || comma >= this.end) return '';
      from = comma + 1;
    }
    const comma = this.text.indexOf(',', from);
    return this.text.slice(from, comma < 0 || comma > this.end ? this.end : comma);
  }

  /** whether the line holds a quote; the search resumes where it left off, once over the text */
  private quoted(): boolean {
    if (this.quote !== -1 && this.quote < this.start)
      this.quote = this.text.indexOf('"', this.start);
    return this.quote >= 0 && this.quote < this.end;
  }
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
