import { describe, expect, it } from 'vitest';
import {
  annotation,
  escapeData,
  escapeProperty,
  group,
} from '../../../../src/cli/github/workflow-commands.js';

describe('GitHub workflow command escaping', () => {
  it('escapes %, CR and LF in a message, and leaves : and , alone there', () => {
    expect(escapeData('50% done\r\nnext: a, b')).toBe('50%25 done%0D%0Anext: a, b');
  });

  it('also escapes : and , in a property', () => {
    expect(escapeProperty('web-1: a,b%\n')).toBe('web-1%3A a%2Cb%25%0A');
  });

  it('writes an annotation with its properties in order, skipping the missing ones', () => {
    expect(
      annotation('warning', 'drain.overlap: too short\nraise it', {
        title: 'invariant drain-before-stop',
        file: 'deploy.yml',
        line: 12,
      }),
    ).toBe(
      '::warning title=invariant drain-before-stop,file=deploy.yml,line=12::drain.overlap: too short%0Araise it',
    );
    expect(annotation('error', 'failed', { title: 'web-2: rolled-back, oops' })).toBe(
      '::error title=web-2%3A rolled-back%2C oops::failed',
    );
    expect(annotation('error', 'plain')).toBe('::error::plain');
  });

  it('cannot be ended early by a title holding a newline', () => {
    expect(group('web-1\n::endgroup::')).toBe('::group::web-1%0A::endgroup::');
  });
});
