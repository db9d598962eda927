import net from 'node:net';
import type { SimHostState } from './agent.js';

export interface SimChecks {
  readonly intervalMs: number;
  /** checks failed in a row before a draining host is DOWN */
  readonly fall: number;
  /** checks passed in a row before an undrained host is UP again */
  readonly rise: number;
}

export interface SimHaproxy {
  /** balancer.socket in deploy.yml */
  readonly socket: string;
  readonly backend: string;
  /** commands answered, by their first two words */
  readonly commands: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

const ADMIN = { ready: 0, drain: 0x08, maint: 0x01 } as const;

/**
 * A stand-in for HAProxy's runtime API over TCP, for N simulated hosts: a
 * host's server goes DOWN `fall` check intervals after its drain marker
 * appeared and comes back UP `rise` intervals after it went, as HAProxy's
 * checks of a drain-aware health endpoint would see it.
 */
export async function startSimHaproxy(
  hosts: readonly SimHostState[],
  checks: SimChecks,
  backend = 'sim',
): Promise<SimHaproxy> {
  const admin = new Map<string, number>();
  const commands = new Map<string, number>();
  const up = (h: SimHostState): boolean => {
    const since = Date.now() - h.changedAt;
    // a check lands half an interval after the change, on average
    if (h.draining) return since < (checks.fall - 0.5) * checks.intervalMs;
    return h.changedAt === 0 || since >= (checks.rise - 0.5) * checks.intervalMs;
  };
  const answer = (command: string): string => {
    const words = command.split(' ').slice(0, 2).join(' ');
    commands.set(words, (commands.get(words) ?? 0) + 1);
    if (command === 'show info')
      return 'Name: HAProxy\nPid: 4242\nUptime_sec: 100\nStart_time_sec: 1\n';
    // the traffic receipt's counters: no traffic is simulated, so every count is 0
    if (command === 'show stat')
      return [
        '# pxname,svname,status,stot,hrsp_5xx,econ,eresp,wretr,wredis',
        `${backend},FRONTEND,OPEN,0,0,,,,`,
        ...hosts.map((h) => `${backend},${h.name},${up(h) ? 'UP' : 'DOWN'},0,0,0,0,0,0`),
        `${backend},BACKEND,UP,0,0,0,0,0,0`,
        '',
      ].join('\n');
    if (command === `show servers state ${backend}`)
      return [
        '1',
        '# be_id be_name srv_id srv_name srv_op_state srv_admin_state srv_check_state',
        ...hosts.map(
          (h, i) => `1 ${backend} ${i + 1} ${h.name} ${up(h) ? 2 : 0} ${admin.get(h.name) ?? 0} 6`,
        ),
        '',
      ].join('\n');
    if (command === `show stat ${backend} 4 -1`)
      return [
        '# pxname,svname,status,check_status,check_code,check_desc,check_rise,check_fall',
        ...hosts.map(
          (h) =>
            `${backend},${h.name},${up(h) ? 'UP' : 'DOWN'},${up(h) ? 'L7OK' : 'L7STS'},${up(h) ? 200 : 503},,${checks.rise},${checks.fall}`,
        ),
        '',
      ].join('\n');
    if (command === 'show backend') return `# name\n${backend}\n`;
    const set = /^set server (\S+)\/(\S+) state (ready|drain|maint)$/.exec(command);
    if (set?.[1] === backend && set[2] && set[3]) {
      admin.set(set[2], ADMIN[set[3] as keyof typeof ADMIN]);
      return '\n';
    }
    return 'Unknown command.\n';
  };
  const server = net.createServer((conn) => {
    let input = '';
    conn.on('error', () => undefined);
    conn.on('data', (d: Buffer) => {
      input += d.toString();
      // the runtime API runs `;`-separated commands in order, each answer after the last
      if (input.endsWith('\n'))
        conn.end(
          input
            .trim()
            .split(';')
            .map((command) => answer(command.trim()))
            .join('\n'),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    socket: `tcp://127.0.0.1:${port}`,
    backend,
    commands,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
