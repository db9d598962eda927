import { describe, expect, it } from 'vitest';
import { printable, SecretMask } from '../../src/safe-text.js';

describe('the secret mask', () => {
  it('replaces every occurrence of every value, the longer value first', () => {
    const mask = new SecretMask();
    mask.add('hunter2');
    mask.add('hunter2-extended');
    expect(mask.mask('a hunter2-extended and a hunter2 and hunter2')).toBe(
      'a *** and a *** and ***',
    );
  });

  it('masks the JSON-escaped spelling of a value with quotes or backslashes', () => {
    const mask = new SecretMask();
    mask.add('p"a\\ss');
    expect(mask.mask(JSON.stringify({ error: 'bad p"a\\ss here' }))).toBe(
      '{"error":"bad *** here"}',
    );
  });

  it('masks strings deep in a JSON value and leaves numbers alone', () => {
    const mask = new SecretMask();
    mask.add('42');
    expect(
      mask.maskDeep({ elapsed_ms: 42, hosts: [{ error: 'stderr: token 42' }], ['k42']: true }),
    ).toEqual({ elapsed_ms: 42, hosts: [{ error: 'stderr: token ***' }], ['k***']: true });
  });

  it('ignores an empty value: it would hide nothing', () => {
    const mask = new SecretMask();
    mask.add('');
    expect(mask.mask('text')).toBe('text');
  });

  it('masks through printable, which every error and output line goes through', async () => {
    const { secretMask } = await import('../../src/safe-text.js');
    secretMask.add('s3cr3t-printable-value');
    expect(printable('web-1: start failed: s3cr3t-printable-value\nnext')).toBe(
      'web-1: start failed: ***\nnext',
    );
  });
});
