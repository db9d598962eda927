import { describe, expect, it } from 'vitest';
import { createHostExec } from '../../../src/host/exec.js';

describe('the host executor, line by line', () => {
  it('hands each line of stdout and stderr over as it comes, a carriage return ending one, and still captures the whole', async () => {
    const lines: string[] = [];
    const exec = createHostExec();
    // a progress bar redraws with \r; a last line has no newline; é is two bytes
    const script =
      'printf "layer 10%%\\rlayer 90%%\\rlayer done\\n"; printf "warn é\\n" >&2; printf "tail"';
    const r = await exec(['sh', '-c', script], { onLine: (l) => lines.push(l) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('layer 10%\rlayer 90%\rlayer done\ntail');
    expect(r.stderr).toBe('warn é');
    expect(lines.filter((l) => l.startsWith('layer'))).toEqual([
      'layer 10%',
      'layer 90%',
      'layer done',
    ]);
    expect(lines).toContain('warn é');
    expect(lines).toContain('tail');
    expect(lines).toHaveLength(5);
  });

  it('joins a character split across two writes instead of mangling it', async () => {
    const lines: string[] = [];
    const exec = createHostExec();
    // the two bytes of é written apart, a moment between them
    const script = 'printf "a\\303"; sleep 0.05; printf "\\251b\\n"';
    await exec(['sh', '-c', script], { onLine: (l) => lines.push(l) });
    expect(lines).toEqual(['aéb']);
  });
});
