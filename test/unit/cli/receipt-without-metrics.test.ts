import { describe, expect, it } from 'vitest';
import { minimal, writeConfig } from '../config/temp-config.js';
import { deploy } from './cli-process.js';

describe('deploy receipt without a balancer whose provider keeps figures', () => {
  it('is bad input, exit 2, one line naming the kinds that have them', async () => {
    const file = await writeConfig(minimal);
    const r = await deploy('receipt', '--from', '1h', '-c', file);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      "deploy receipt reads the per-minute figures a balancer's provider keeps (kind alb), and deploy.yml names no such balancer",
    );
  });
});
