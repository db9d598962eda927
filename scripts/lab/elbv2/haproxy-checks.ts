import { setTimeout as delay } from 'node:timers/promises';
import { haproxyCommand, showStat } from '../haproxy.js';
import type { LabHostPlan } from '../layout.js';

export interface CheckParams {
  readonly interMs: number;
  readonly rise: number;
  readonly fall: number;
}

/**
 * HAProxy has no runtime command for `inter`, `rise` and `fall`: each server
 * is replaced through the runtime API (maint, del, add with the new check,
 * enable health) and put back in the admin state it had. `timeout check`
 * belongs to the backend and stays what haproxy.cfg says.
 */
export async function applyChecks(
  socket: string,
  backend: string,
  hosts: readonly LabHostPlan[],
  port: number,
  params: CheckParams,
): Promise<void> {
  const rows = await showStat(socket);
  for (const h of hosts) {
    const status = rows.find((r) => r.pxname === backend && r.svname === h.name)?.status ?? '';
    const name = `${backend}/${h.name}`;
    await command(socket, `set server ${name} state maint`);
    await deleteServer(socket, name);
    await command(
      socket,
      `add server ${name} ${h.address}:${port} check inter ${params.interMs} fall ${params.fall} rise ${params.rise}`,
    );
    await command(socket, `enable health ${name}`);
    const admin = status === 'MAINT' ? 'maint' : status === 'DRAIN' ? 'drain' : 'ready';
    await command(socket, `set server ${name} state ${admin}`);
  }
}

/** `del server` is refused while connections are attached: close them and try again. */
async function deleteServer(socket: string, name: string): Promise<void> {
  let answer = '';
  for (let attempt = 0; attempt < 50; attempt += 1) {
    answer = (await haproxyCommand(socket, `del server ${name}`)).trim();
    if (/deleted/i.test(answer)) return;
    await haproxyCommand(socket, `shutdown sessions server ${name}`);
    await delay(100);
  }
  throw new Error(`haproxy: del server ${name}: ${answer}`);
}

async function command(socket: string, line: string): Promise<void> {
  const answer = (await haproxyCommand(socket, line)).trim();
  if (answer !== '' && !/registered|Health check/i.test(answer))
    throw new Error(`haproxy: ${line}: ${answer}`);
}
