import { mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../src/config/parse.js';
import type { Config } from '../../src/config/types.js';
import { scratchDir } from './scratch.js';

export const httpService = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'services',
  'http-service.mjs',
);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface HostFixture {
  readonly dir: string;
  readonly port: number;
  readonly config: Config;
  readonly yaml: string;
  pid(): Promise<number | undefined>;
}

/**
 * A host in a temp directory: its own root, state and lock, and one real HTTP
 * service run by the command runtime.
 */
export async function hostFixture(
  watchdog = '',
  options: {
    readonly stop?: string;
    readonly stopTimeout?: string;
    /** more services, as deploy.yml list items */
    readonly moreServices?: string;
    /** the service's http check also expects x-release (expect_release: true) */
    readonly expectRelease?: boolean;
  } = {},
): Promise<HostFixture> {
  const dir = await scratchDir('handoff-host-');
  await mkdir(path.join(dir, 'state'), { recursive: true });
  const port = await freePort();
  const pidFile = '"$HANDOFF_STATE/$HANDOFF_SERVICE.pid"';
  const yaml = `
service: t
ssh: { user: root, known_hosts: /dev/null }
hosts: [{ name: local, address: 127.0.0.1 }]
balancer: { kind: static, interval: 1s, timeout: 500ms, unhealthy_threshold: 2, healthy_threshold: 2 }
drain: { overlap: 1s, max_request: 2s, stop_timeout: ${options.stopTimeout ?? '5s'} }
host: { root: ${dir}/root, lock: ${dir}/lock/t, state: ${dir}/state, agent: ${dir}/agent }
runtime: { kind: command }
services:
  - name: app
    check: { http: "http://127.0.0.1:${port}/health", timeout: 1s${options.expectRelease ? ', expect_release: true' : ''} }
    start: 'PORT=${port} node ${httpService} >/dev/null 2>&1 &'
    stop: '${options.stop ?? `p=$(cat ${pidFile} 2>/dev/null) || exit 0; kill $p 2>/dev/null; while kill -0 $p 2>/dev/null; do sleep 0.05; done; rm -f ${pidFile}`}'
    status: 'kill -0 $(cat ${pidFile} 2>/dev/null) 2>/dev/null'
${options.moreServices ?? ''}
${watchdog}`;
  const config = parseConfig(yaml, path.join(dir, 'deploy.yml'));
  return {
    dir,
    port,
    config,
    yaml,
    pid: async () => {
      const text = await readFile(path.join(dir, 'state', 'app.pid'), 'utf8').catch(() => '');
      return text ? Number(text) : undefined;
    },
  };
}
