import { describe, expect, it } from 'vitest';
import { NginxBalancer } from '../../../src/balancer/nginx/adapter.js';
import type { NginxHost } from '../../../src/balancer/nginx/host.js';
import type { NginxBalancerConfig } from '../../../src/balancer/nginx/config/entry.js';
import { OperationError } from '../../../src/errors.js';

const upstream = 'upstream api {\n  server 10.0.1.11:8080;\n  server 10.0.1.12:8080;\n}\n';

/**
 * nginx as its docs describe a reload: the master starts new workers and the
 * old ones retitle themselves "is shutting down" until their connections end.
 */
class FakeNginx implements NginxHost {
  readonly where = 'this machine';
  readonly files = new Map<string, string>([
    ['/etc/nginx/conf.d/api.conf', upstream],
    ['/etc/nginx/nginx.conf', 'worker_shutdown_timeout 30s;\nevents {}\n'],
    ['/run/nginx.pid', '100\n'],
  ]);
  readonly ran: string[] = [];
  workers = [{ pid: 101, shuttingDown: false }];
  testFails = false;
  private next = 200;

  read(file: string): Promise<string> {
    const text = this.files.get(file);
    return text === undefined
      ? Promise.reject(new OperationError(`no ${file}`))
      : Promise.resolve(text);
  }
  write(file: string, text: string): Promise<void> {
    this.ran.push(`write ${file}`);
    this.files.set(file, text);
    return Promise.resolve();
  }
  run(argv: readonly string[]) {
    this.ran.push(argv.join(' '));
    if (argv[0] === 'ps') {
      const stdout = this.workers
        .map((w) => `${w.pid} nginx: worker process${w.shuttingDown ? ' is shutting down' : ''}`)
        .join('\n');
      return Promise.resolve({ code: 0, stdout, stderr: '' });
    }
    if (argv.includes('-t'))
      return Promise.resolve(
        this.testFails
          ? {
              code: 1,
              stdout: '',
              stderr: 'nginx: [emerg] unknown directive "bogus" in /etc/nginx/conf.d/x.conf:1\n',
            }
          : { code: 0, stdout: '', stderr: '' },
      );
    this.workers = [
      ...this.workers.map((w) => ({ ...w, shuttingDown: true })),
      { pid: this.next++, shuttingDown: false },
    ];
    return Promise.resolve({ code: 0, stdout: '', stderr: '' });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  locked<T>(_file: string, fn: () => Promise<T>): Promise<T> {
    return fn();
  }
  /** every worker from before the reload has finished and exited */
  oldExit(): void {
    this.workers = this.workers.filter((w) => !w.shuttingDown);
  }
}

const config: NginxBalancerConfig = {
  kind: 'nginx',
  config: '/etc/nginx/conf.d/api.conf',
  upstream: 'api',
};

const state = async (b: NginxBalancer, target: string) => (await b.states([target])).get(target);

describe('the nginx balancer', () => {
  it('marks the server down, tests, then reloads, in that order', async () => {
    const nginx = new FakeNginx();
    await new NginxBalancer(config, nginx).deregister('10.0.1.11:8080');
    expect(nginx.ran).toEqual([
      'write /etc/nginx/conf.d/api.conf',
      'nginx -t -q',
      'ps -o pid=,args= --ppid 100',
      'nginx -s reload',
    ]);
    expect(nginx.files.get(config.config)).toContain('server 10.0.1.11:8080 down;');
  });

  it('keeps the host in rotation until every worker from before the reload has exited', async () => {
    const nginx = new FakeNginx();
    const balancer = new NginxBalancer(config, nginx);
    await balancer.deregister('10.0.1.11:8080');
    expect(await state(balancer, '10.0.1.11:8080')).toMatchObject({
      state: 'draining',
      inRotation: true,
    });
    nginx.oldExit();
    expect(await state(balancer, '10.0.1.11:8080')).toMatchObject({
      state: 'unused',
      inRotation: false,
      reason: 'down in upstream api',
    });
    expect(await state(balancer, '10.0.1.12:8080')).toMatchObject({ inRotation: true });
  });

  it('counts a host back once new workers run without its down', async () => {
    const nginx = new FakeNginx();
    const balancer = new NginxBalancer(config, nginx);
    await balancer.deregister('10.0.1.11:8080');
    nginx.oldExit();
    await balancer.register('10.0.1.11:8080');
    expect(nginx.files.get(config.config)).toBe(upstream);
    expect(await state(balancer, '10.0.1.11:8080')).toMatchObject({
      state: 'healthy',
      inRotation: true,
    });
  });

  it('puts the file back and does not reload when nginx -t fails', async () => {
    const nginx = new FakeNginx();
    nginx.testFails = true;
    const balancer = new NginxBalancer(config, nginx);
    await expect(balancer.deregister('10.0.1.11:8080')).rejects.toThrow(
      'nginx -t failed with 10.0.1.11:8080 marked down on this machine, so nginx was not reloaded and /etc/nginx/conf.d/api.conf is as it was: [emerg] unknown directive "bogus" in /etc/nginx/conf.d/x.conf:1',
    );
    expect(nginx.files.get(config.config)).toBe(upstream);
    expect(nginx.ran.filter((r) => r.includes('reload'))).toEqual([]);
    expect(await state(balancer, '10.0.1.11:8080')).toMatchObject({ inRotation: true });
  });

  it('says a target the upstream does not list is absent', async () => {
    const balancer = new NginxBalancer(config, new FakeNginx());
    expect(await state(balancer, '10.0.1.13:8080')).toMatchObject({
      inRotation: false,
      unregistered: 'absent',
    });
    await expect(balancer.deregister('10.0.1.13:8080')).rejects.toThrow(
      /has no server 10.0.1.13:8080/,
    );
  });

  it("gives the timing model worker_shutdown_timeout as the drain's delay", async () => {
    const settings = await new NginxBalancer(config, new FakeNginx()).settings();
    expect(settings).toEqual({
      interval: 2000,
      timeout: 1000,
      unhealthyThreshold: 1,
      healthyThreshold: 1,
      deregistrationDelay: 30_000,
      deregistrationDelaySetting: "worker_shutdown_timeout in nginx's main config",
    });
  });
});
