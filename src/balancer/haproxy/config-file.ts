/**
 * Reads the check settings of one backend from an haproxy config file. The
 * runtime API reports each server's rise and fall but not `inter` or
 * `timeout check`, and those decide how long a drain takes to be seen.
 * Only what haproxy itself would apply is modelled: defaults sections (the
 * last one before the proxy, or the one named by `from`), `default-server`
 * lines (for the servers after them) and per-server keywords.
 */

export interface ServerCheck {
  readonly check: boolean;
  readonly inter: number;
  readonly fall: number;
  readonly rise: number;
  readonly slowstart?: number;
  /** `on-marked-down shutdown-sessions`: where it is set (`line N: …`), on the server or a default-server */
  readonly shutdownSessions?: string;
}

export interface BackendChecks {
  readonly servers: ReadonlyMap<string, ServerCheck>;
  readonly timeoutCheck?: number;
  /** `http-check disable-on-404`: where it is set (`line N: …`), in the backend or its defaults */
  readonly disableOn404?: string;
  /**
   * where persistence is set (`cookie`, `stick on|match`) when the backend
   * has no `option redispatch` or `retries 0`: a persistent client is still
   * sent to a server that stopped until its checks mark it DOWN
   */
  readonly persistWithoutRedispatch?: string;
}

/** haproxy's defaults when a keyword is absent */
export const haproxyDefaults = { inter: 2_000, fall: 3, rise: 2 } as const;

interface Scope {
  server: Partial<ServerCheck>;
  timeoutCheck?: number;
  disableOn404?: string;
  persistence?: string;
  redispatch?: boolean;
  retries?: number;
}

// every section keyword ends the section before it
const sections = new Set([
  ...['global', 'defaults', 'frontend', 'backend', 'listen', 'peers', 'resolvers'],
  ...['userlist', 'program', 'http-errors', 'ring', 'mailers', 'cache', 'crt-store', 'traces'],
]);

/** The backend's settings, or a reason it cannot be read (one line). */
export function readBackendChecks(
  text: string,
  backend: string,
): { ok: true; checks: BackendChecks } | { ok: false; reason: string } {
  const named = new Map<string, Scope>();
  let lastDefaults: Scope = { server: {} };
  let current: Scope | undefined;
  let servers: Map<string, ServerCheck> | undefined;
  let found: { scope: Scope; servers: Map<string, ServerCheck> } | undefined;

  for (const [index, raw] of text.split('\n').entries()) {
    const at = `line ${index + 1}: ${raw.trim()}`;
    const words = tokens(raw);
    const [keyword, ...args] = words;
    if (keyword === undefined) continue;
    if (sections.has(keyword)) {
      current = undefined;
      servers = undefined;
      if (keyword === 'defaults') {
        const from = fromOf(args);
        const base = from === undefined ? undefined : named.get(from);
        current = base ? copy(base) : { server: {} };
        lastDefaults = current;
        if (args[0] !== undefined && args[0] !== 'from') named.set(args[0], current);
      } else if ((keyword === 'backend' || keyword === 'listen') && args[0] === backend) {
        const from = args.indexOf('from') > 0 ? fromOf(args) : undefined;
        const base = from === undefined ? lastDefaults : named.get(from);
        if (!base)
          return { ok: false, reason: `backend ${backend} is 'from' an unknown defaults section` };
        current = copy(base);
        servers = new Map();
        found = { scope: current, servers };
      }
      continue;
    }
    if (!current) continue;
    const proxy = proxyKeyword(current, words, at);
    if (proxy === 'unreadable') return { ok: false, reason: `unreadable line: ${raw.trim()}` };
    if (proxy === 'taken') continue;
    if (keyword === 'default-server') {
      const parsed = serverKeywords(args, at);
      if (!parsed.ok) return { ok: false, reason: `${parsed.reason} in: ${raw.trim()}` };
      current.server = { ...current.server, ...parsed.values };
    } else if (keyword === 'server' && servers) {
      const parsed = serverKeywords(args.slice(2), at);
      if (!parsed.ok || args[0] === undefined) {
        return { ok: false, reason: `${parsed.ok ? 'no name' : parsed.reason} in: ${raw.trim()}` };
      }
      servers.set(args[0], withDefaults({ ...current.server, ...parsed.values }));
    }
  }
  if (!found) return { ok: false, reason: `no backend ${backend} in it` };
  return { ok: true, checks: checksOf(found.scope, found.servers) };
}

function checksOf(scope: Scope, servers: ReadonlyMap<string, ServerCheck>): BackendChecks {
  const { timeoutCheck, disableOn404, persistence } = scope;
  // haproxy retries a connection 3 times unless told otherwise
  const redispatches = scope.redispatch === true && (scope.retries ?? 3) > 0;
  return {
    servers,
    ...(timeoutCheck !== undefined ? { timeoutCheck } : {}),
    ...(disableOn404 !== undefined ? { disableOn404 } : {}),
    ...(persistence !== undefined && !redispatches && { persistWithoutRedispatch: persistence }),
  };
}

/**
 * A keyword of the section itself (`timeout check`, `http-check
 * disable-on-404`, redispatch, `retries`, persistence) put in its scope.
 */
function proxyKeyword(
  scope: Scope,
  words: readonly string[],
  at: string,
): 'taken' | 'unreadable' | undefined {
  const [keyword, ...args] = words;
  if (keyword === 'timeout' && args[0] === 'check') {
    const ms = parseTime(args[1]);
    if (ms === undefined) return 'unreadable';
    scope.timeoutCheck = ms;
  } else if (keyword === 'http-check' && args[0] === 'disable-on-404') {
    scope.disableOn404 = at;
  } else if (isRedispatch(words)) {
    scope.redispatch = keyword === 'option';
  } else if (keyword === 'retries') {
    scope.retries = Number(args[0]);
  } else if (keyword === 'cookie' || (keyword === 'stick' && /^(on|match)$/.test(args[0] ?? ''))) {
    scope.persistence = at;
  } else {
    return undefined;
  }
  return 'taken';
}

/** `option redispatch [interval]` or `no option redispatch` */
function isRedispatch(words: readonly string[]): boolean {
  const [first, ...rest] = words;
  const option = first === 'no' ? rest : words;
  return option[0] === 'option' && option[1] === 'redispatch';
}

/** The section a `defaults`/`backend` line is `from`, if it names one. */
function fromOf(args: readonly string[]): string | undefined {
  const i = args.indexOf('from');
  return i >= 0 ? (args[i + 1] ?? '') : undefined;
}

/** A server line's check settings, HAProxy's defaults where neither it nor default-server set one. */
function withDefaults(s: Partial<ServerCheck>): ServerCheck {
  return {
    check: s.check ?? false,
    inter: s.inter ?? haproxyDefaults.inter,
    fall: s.fall ?? haproxyDefaults.fall,
    rise: s.rise ?? haproxyDefaults.rise,
    ...(s.slowstart !== undefined ? { slowstart: s.slowstart } : {}),
    ...(s.shutdownSessions !== undefined ? { shutdownSessions: s.shutdownSessions } : {}),
  };
}

function serverKeywords(
  args: readonly string[],
  /** the line, for what must name where it was set */
  at: string,
): { ok: true; values: Partial<ServerCheck> } | { ok: false; reason: string } {
  const values: { -readonly [K in keyof ServerCheck]?: ServerCheck[K] } = {};
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    const value = args[i + 1];
    if (word === 'check') values.check = true;
    else if (word === 'on-marked-down' && value === 'shutdown-sessions') {
      values.shutdownSessions = at;
      i++;
    } else if (word === 'no-check') values.check = false;
    else if (word === 'inter' || word === 'slowstart') {
      const ms = parseTime(value);
      if (ms === undefined) return { ok: false, reason: `bad ${word} ${value ?? ''}` };
      values[word] = ms;
      i++;
    } else if (word === 'fall' || word === 'rise') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) return { ok: false, reason: `bad ${word} ${value ?? ''}` };
      values[word] = n;
      i++;
    }
  }
  return { ok: true, values };
}

const timeUnits: Record<string, number> = {
  us: 0.001,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** haproxy time: a number in ms by default, or suffixed us/ms/s/m/h/d */
export function parseTime(text: string | undefined): number | undefined {
  const match = /^(\d+)(us|ms|s|m|h|d)?$/.exec(text ?? '');
  if (!match) return undefined;
  return Math.ceil(Number(match[1]) * (timeUnits[match[2] ?? 'ms'] ?? 1));
}

function tokens(line: string): string[] {
  const code = line.replace(/(^|\s)#.*$/, '');
  return code.trim() === '' ? [] : code.trim().split(/\s+/);
}

function copy(scope: Scope): Scope {
  return { ...scope, server: { ...scope.server } };
}
