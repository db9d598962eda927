import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/parse.js';
import { ConfigError, HandoffError } from '../../../src/errors.js';
import { minimal } from './temp-config.js';

/**
 * The loader against hostile input: whatever the text, it returns a Config or
 * throws a ConfigError (exit 2) with one located line per problem — never an
 * internal error, never a line broken by the file's own newlines or ESCs.
 */

const source = 'fuzz.yml';

function assertLoadsOrIsOneLocatedLinePerProblem(text: string): void {
  let error: unknown;
  try {
    parseConfig(text, source, { env: {} });
    return;
  } catch (e) {
    error = e;
  }
  if (!(error instanceof ConfigError)) throw error;
  expect(error.exitCode).toBe(2);
  const lines = error.message.split('\n');
  expect(lines).toHaveLength(error.problems.length);
  for (const [i, line] of lines.entries()) {
    expect(error.problems[i]?.location).toMatch(/^fuzz\.yml:\d+:\d+$/);
    expect(line).toMatch(/ \(fuzz\.yml:\d+:\d+\)$/);
    // eslint-disable-next-line no-control-regex
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  }
}

/** keys and scalars with the characters that break parsers, paths and terminals */
const nasty = fc.oneof(
  fc.string(),
  fc.string({
    unit: fc.constantFrom(
      '\n',
      '\u001b',
      '\r',
      '\t',
      ':',
      '#',
      '&',
      '*',
      '!',
      '|',
      '>',
      '%',
      '@',
      '`',
      '"',
      "'",
      '{',
      '[',
      ',',
      '-',
      ' ',
      'a',
      '0',
      '\u2028',
      '\u0085',
    ),
  }),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'toString',
    '<<',
    '~',
    'null',
    'true',
    '0x1F',
    '1e9',
    '.inf',
    '-.nan',
  ),
);

const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nasty,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(nasty, tie('node'), { maxKeys: 4 }),
  ),
})).node;

const valid = parse(minimal) as Record<string, unknown>;
const topKeys = [...Object.keys(valid), 'drain', 'rollout', 'host', 'watchdog'];

/** a valid deploy.yml with one key changed, removed or added, anywhere in its tree */
const mutated = fc
  .tuple(
    fc.array(fc.oneof(fc.constantFrom(...topKeys), nasty, fc.nat(3)), {
      minLength: 1,
      maxLength: 4,
    }),
    fc.oneof(value, fc.constant(undefined)),
  )
  .map(([path, replacement]) => {
    const doc = structuredClone(valid);
    let node: Record<string | number, unknown> = doc;
    for (const key of path.slice(0, -1)) {
      const next = Object.hasOwn(node, key) ? node[key] : undefined;
      if (typeof next !== 'object' || next === null) own(node, key, {});
      node = node[key] as Record<string | number, unknown>;
    }
    const last = path.at(-1)!;
    if (replacement === undefined) delete node[last];
    else own(node, last, replacement);
    return doc;
  });

/** an own key even for `__proto__`: plain assignment would change the test's Object.prototype */
function own(node: object, key: string | number, value: unknown): void {
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
}

// CPU-bound runs of fixed size: the bound is generous so a loaded machine is slow, not red
describe('the config loader under fuzzing', { timeout: 120_000 }, () => {
  it('answers arbitrary text with a Config or one located line per problem', () => {
    fc.assert(fc.property(nasty, assertLoadsOrIsOneLocatedLinePerProblem), { numRuns: 300 });
  });

  it('answers arbitrary YAML documents the same way', () => {
    fc.assert(
      fc.property(value, (doc) => assertLoadsOrIsOneLocatedLinePerProblem(stringify(doc))),
      { numRuns: 300 },
    );
  });

  it('answers a valid deploy.yml with one key mutated the same way', () => {
    fc.assert(
      fc.property(mutated, (doc) => assertLoadsOrIsOneLocatedLinePerProblem(stringify(doc))),
      { numRuns: 500 },
    );
  });

  it('never throws anything but a HandoffError for a mutation in JSON (the host config’s form)', () => {
    fc.assert(
      fc.property(mutated, (doc) => {
        try {
          parseConfig(JSON.stringify(doc), source, { env: {} });
        } catch (error) {
          expect(error).toBeInstanceOf(HandoffError);
        }
      }),
      { numRuns: 200 },
    );
  });
});
