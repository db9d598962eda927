import { excerpt } from './safe-text.js';

/**
 * The oldest Node handoff runs on, on the operator's machine and on every
 * host: the maintained LTS lines (22 from 22.12, 24). package.json's
 * `engines` says the same, and the bundles are built for it
 * (scripts/build.ts), so an older node may not even parse them.
 */
export const MIN_NODE = '22.12.0';
/** how messages name it */
export const MIN_NODE_TEXT = '22.12';

export type NodeVersion = readonly [major: number, minor: number, patch: number];

/** `v20.11.0`, `20.11.0` (what `node --version` and `process.versions.node` print) */
export function parseNodeVersion(text: string): NodeVersion | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.-]*)?$/.exec(text.trim());
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** a >= b, part by part */
export function versionAtLeast(a: NodeVersion, b: NodeVersion): boolean {
  for (let i = 0; i < 3; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

const MIN = parseNodeVersion(MIN_NODE) as NodeVersion;

/** what to do about it, in every message */
export const INSTALL_NODE = `install Node 22 (22.12 or later) or 24`;

/**
 * What is wrong with the node that answered `reported` (undefined: nothing).
 * `where` names it (`this machine's node`); `fix` says what to do.
 */
export function nodeVersionProblem(
  reported: string,
  where: string,
  fix: string = INSTALL_NODE,
): string | undefined {
  const text = reported.trim();
  const version = parseNodeVersion(text);
  if (!version) {
    const shown = excerpt(text, 60) || 'nothing';
    return `${where} did not answer a version (${JSON.stringify(shown)}): ${fix}`;
  }
  if (versionAtLeast(version, MIN)) return undefined;
  return `${where} is ${version.join('.')}, older than ${MIN_NODE_TEXT}: ${fix}`;
}
