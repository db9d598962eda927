import { describe, expect, it } from 'vitest';
import type { CheckedSettings } from '../../../src/balancer/kind.js';
import { nginxWarnings } from '../../../src/balancer/nginx/warnings.js';
import type { Config } from '../../../src/config/types.js';
import { settings } from '../../support/fake-fleet.js';
import { testConfig } from '../../support/config.js';

const config: Config = {
  ...testConfig(),
  balancers: [
    {
      name: 'nginx',
      kind: 'nginx',
      config: '/etc/nginx/conf.d/api.conf',
      upstream: 'api',
      mainConfig: '/etc/nginx/nginx.conf',
      targets: {},
    },
  ],
};

const read = (configText: string | undefined): CheckedSettings[] => [
  { name: 'nginx', settings, source: 'live', ...(configText !== undefined && { configText }) },
];

describe('deploy check --live on nginx: the reload that closes idle client connections', () => {
  it('warns when the main config keeps no idle connection through a reload', () => {
    const warnings = nginxWarnings(
      config,
      read('events {}\nhttp {\n  keepalive_timeout 10s;\n}\n'),
    );
    expect(warnings).toEqual([
      expect.stringMatching(
        /^nginx: \/etc\/nginx\/nginx.conf sets no keepalive_min_timeout: each drain and undrain reloads nginx, .* on nginx 1\.27\.4 or later set keepalive_min_timeout/,
      ),
    ]);
  });

  it('is quiet when keepalive_min_timeout is set above zero, and not when it is 0 or commented out', () => {
    expect(nginxWarnings(config, read('http {\n  keepalive_min_timeout 1s;\n}\n'))).toEqual([]);
    expect(nginxWarnings(config, read('http {\n  keepalive_min_timeout 0;\n}\n'))).toHaveLength(1);
    expect(nginxWarnings(config, read('http {\n  # keepalive_min_timeout 1s;\n}\n'))).toHaveLength(
      1,
    );
  });

  it('says nothing of a config it did not read', () => {
    expect(nginxWarnings(config, read(undefined))).toEqual([]);
  });
});
