import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LabTargetGroup } from '../../../scripts/lab/elbv2/target-group.js';
import { labLayout } from '../../../scripts/lab/layout.js';

/**
 * A stand-in HAProxy admin socket: `set server … state ready` makes the
 * server UP, `health down` DOWN; `show stat` answers with the status it had
 * when the command arrived. Each answer waits for its gate, so a test orders
 * commands that would race on a busy machine.
 */
function fakeHaproxy(socket: string, backend: string, server: string) {
  let status = 'MAINT';
  const arrived = new Map<string, () => void>();
  const arrivals = new Map<string, Promise<void>>();
  const gates = new Map<string, { open: () => void; opened: Promise<void> }>();
  const key = (command: string) => command.replace(/^set server \S+ /, '');
  const slot = <T>(map: Map<string, T>, k: string, make: () => T): T => {
    if (!map.has(k)) map.set(k, make());
    return map.get(k)!;
  };
  const gate = (k: string) =>
    slot(gates, k, () => {
      let open = () => undefined as void;
      const opened = new Promise<void>((r) => (open = r));
      return { open, opened };
    });
  const arrival = (k: string) =>
    slot(arrivals, k, () => new Promise<void>((r) => arrived.set(k, r)));
  // like HAProxy, it answers after the client's end of the command (half-open)
  const listener = net.createServer({ allowHalfOpen: true }, (conn) => {
    let line = '';
    conn.on('data', (d) => {
      line += d.toString();
      if (!line.endsWith('\n')) return;
      const k = key(line.trim());
      if (k === 'state ready') status = 'UP';
      if (k === 'health down') status = 'DOWN';
      const csv = `# pxname,svname,status\n${backend},${server},${status}\n`;
      void arrival(k);
      arrived.get(k)?.();
      void (gates.has(k) ? gate(k).opened : Promise.resolve()).then(() =>
        conn.end(k === 'show stat' ? csv : '\n'),
      );
    });
  });
  return {
    listen: () => new Promise<void>((r) => listener.listen(socket, r)),
    close: () => new Promise<void>((r) => listener.close(() => r())),
    /** answers to this command wait until open() */
    hold: (command: string) => gate(command),
    arrived: (command: string) => arrival(command),
  };
}

const stateOf = (listed: unknown, id: string): string | undefined =>
  (listed as { Target: { Id: string }; TargetHealth: { State: string } }[]).find(
    (d) => d.Target.Id === id,
  )?.TargetHealth.State;

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('the lab ELBv2 endpoint while RegisterTargets tells HAProxy', () => {
  it('a DescribeTargetHealth whose stat read saw the server UP between the two commands reports initial', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'handoff-elbv2-race-'));
    const layout = labLayout({ workDir: dir });
    const host = layout.hosts[0]!;
    const socket = path.join(dir, 'admin.sock');
    const haproxy = fakeHaproxy(socket, layout.backend, host.name);
    await haproxy.listen();
    const group = new LabTargetGroup(layout, socket, 'eu-west-1', {
      deregistrationDelayS: 5,
      now: 0,
    });
    try {
      await group.deregister([{ Id: host.address }], 0);
      const ready = haproxy.hold('state ready');
      const stat = haproxy.hold('show stat');
      const registering = group.register([{ Id: host.address }], 1);
      await haproxy.arrived('state ready');
      // the read reaches HAProxy between `state ready` and `health down`: it sees UP
      const reading = group.health([], 2);
      await haproxy.arrived('show stat');
      ready.open();
      await registering;
      // … and its answer is read only after the registration has settled
      stat.open();
      const rr = await reading;
      console.log('LISTED', JSON.stringify(rr));
      expect(stateOf(rr, host.address)).toBe('initial');
      // a read that starts after the registration sees HAProxy's DOWN: still initial
      expect(stateOf(await group.health([], 3), host.address)).toBe('initial');
    } finally {
      group.close();
      await haproxy.close();
    }
  });
});
