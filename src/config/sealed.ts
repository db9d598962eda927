import { VERSION } from '../version.js';
import { isObject, sealedConfigHolds } from './sealed-check.js';
import type { Config } from './types.js';

/**
 * The host config `deploy setup` publishes is generated from a Config that was
 * validated on the operator's machine. Besides the deploy.yml-shaped document
 * it carries that Config, normalized, under `sealed`, with a checksum over both
 * and the handoff version. A watchdog tick (once a minute on every host) then
 * reads it with JSON.parse instead of the YAML parser and the zod schema, which
 * were most of a tick's CPU (docs/benchmarks.md). Anything else — deploy.yml,
 * a host config edited by hand, one written by another version — goes through
 * full validation, so a hand edit is checked and used, never ignored. The seal
 * guards against mistakes, not against someone who can write the file: they
 * could recompute it. So it is honoured only where it was meant — a watchdog
 * tick and the agent (`trustSeal`), never `deploy check -c FILE` — and even
 * there every field that ends up in a path, a cron line, an argv or a timer
 * is checked again (sealed-check.ts).
 *
 * This module imports neither yaml nor zod; keep it that way.
 */

export const SEAL_KEY = 'sealed';
// /1 carried a sha256: a host config setup wrote with it is validated in full until setup runs again
const FORMAT = 'handoff-host-config/2';

interface Seal {
  readonly format: string;
  readonly version: string;
  readonly config: Omit<Config, 'source'>;
  readonly checksum: string;
}

function digest(document: unknown, format: string, version: string, config: unknown): string {
  return checksum(JSON.stringify([format, version, document, config]));
}

/**
 * 64 bits over the text's UTF-16 code units (FNV-1a and a multiply-xorshift
 * lane, mixed at the end): what tells a hand edit from what setup wrote. Not
 * sha256: the seal is no defence against someone who can write the file (see
 * above), and node:crypto, loaded for it, cost every watchdog tick a third of
 * a bare node's CPU (docs/benchmarks.md).
 */
export function checksum(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  const high = Math.imul(a ^ (a >>> 16), 0x85ebca6b) ^ Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  const low = Math.imul(b ^ (b >>> 16), 0x85ebca6b) ^ Math.imul(high ^ (high >>> 13), 0xc2b2ae35);
  return [high, low].map((n) => (n >>> 0).toString(16).padStart(8, '0')).join('');
}

/** The host config file: `document` (deploy.yml keys) plus the seal over it and `config`. */
export function sealHostConfig(document: object, config: Config): string {
  const { source: _source, env, ...rest } = config;
  // where secrets come from stays on the orchestrator: the host reads names only
  const normalized = { ...rest, env: { clear: env.clear, secret: env.secret } };
  const seal: Seal = {
    format: FORMAT,
    version: VERSION,
    config: normalized,
    checksum: digest(document, FORMAT, VERSION, normalized),
  };
  return `${JSON.stringify({ ...document, [SEAL_KEY]: seal }, null, 2)}\n`;
}

/**
 * The sealed Config, when `text` is a host config whose seal matches its
 * document, this format and this version; otherwise undefined and the caller
 * validates the text in full. `source` becomes the Config's source.
 */
export function unsealHostConfig(text: string, source: string): Config | undefined {
  // deploy.yml (YAML) cannot be a sealed host config; do not even try to parse it
  if (!text.trimStart().startsWith('{')) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(data)) return undefined;
  const { [SEAL_KEY]: seal, ...document } = data;
  if (!isObject(seal) || seal.format !== FORMAT || seal.version !== VERSION) return undefined;
  if (!isObject(seal.config) || typeof seal.checksum !== 'string') return undefined;
  if (digest(document, FORMAT, VERSION, seal.config) !== seal.checksum) return undefined;
  if (!sealedConfigHolds(seal.config)) return undefined;
  return { ...seal.config, source };
}

/**
 * A host config's document without its seal, for full validation. Only a seal
 * setup wrote is taken off, of this format or an earlier one: a `sealed` key
 * of anything else stays, and is an unknown key like any other.
 */
export function withoutSeal(data: unknown): unknown {
  if (!isObject(data) || !isObject(data[SEAL_KEY]) || !isSealFormat(data[SEAL_KEY].format))
    return data;
  const { [SEAL_KEY]: _seal, ...document } = data;
  return document;
}

function isSealFormat(format: unknown): boolean {
  return typeof format === 'string' && /^handoff-host-config\/\d+$/.test(format);
}
