import { describe, expect, it } from 'vitest';
import { MIN_SECRET_LENGTH, printable, SecretMask } from '../../src/safe-text.js';

describe('the secret mask', () => {
  it('replaces every occurrence of every value, the longer value first', () => {
    const mask = new SecretMask();
    mask.add('hunter22');
    mask.add('hunter22-extended');
    expect(mask.mask('a hunter22-extended and a hunter22 and hunter22')).toBe(
      'a *** and a *** and ***',
    );
  });

  it('masks the JSON-escaped spelling of a value with quotes or backslashes', () => {
    const mask = new SecretMask();
    mask.add('p"a\\ssword');
    expect(mask.mask(JSON.stringify({ error: 'bad p"a\\ssword here' }))).toBe(
      '{"error":"bad *** here"}',
    );
  });

  it('masks strings deep in a JSON value and leaves numbers alone', () => {
    const mask = new SecretMask();
    mask.add('42424242');
    expect(
      mask.maskDeep({
        elapsed_ms: 42424242,
        hosts: [{ error: 'stderr: token 42424242' }],
        ['k42424242']: true,
      }),
    ).toEqual({ elapsed_ms: 42424242, hosts: [{ error: 'stderr: token ***' }], ['k***']: true });
  });

  it('ignores an empty value: it would hide nothing', () => {
    const mask = new SecretMask();
    mask.add('');
    expect(mask.mask('text')).toBe('text');
  });

  it(`ignores a value shorter than ${MIN_SECRET_LENGTH} characters: it would mangle words and give itself away`, () => {
    const mask = new SecretMask();
    mask.add('host');
    mask.add('a'.repeat(MIN_SECRET_LENGTH - 1));
    expect(mask.mask('release r1: 2 host(s)')).toBe('release r1: 2 host(s)');
    mask.add('a'.repeat(MIN_SECRET_LENGTH));
    expect(mask.mask(`x ${'a'.repeat(MIN_SECRET_LENGTH)} y`)).toBe('x *** y');
  });

  it('masks through printable, which every error and output line goes through', async () => {
    const { secretMask } = await import('../../src/safe-text.js');
    secretMask.add('s3cr3t-printable-value');
    expect(printable('web-1: start failed: s3cr3t-printable-value\nnext')).toBe(
      'web-1: start failed: ***\nnext',
    );
  });
});
