// node --import tsx scripts/lab/cli.ts up|down|status [--hosts N] [--for SECONDS] [--work-dir DIR] [--balancer haproxy|alb|nginx] [--runtime command|compose]
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { serverStatus } from './haproxy.js';
import { nsenterArgv, sshArgv } from './exec.js';
import { cleanLeftovers, startLab } from './lab.js';
import { DEFAULT_WORK_DIR, labFiles, type LabBalancer } from './layout.js';
import { isAlive } from './procs.js';
import { readState } from './state.js';

const usage =
  'usage: lab up|down|status [--hosts N] [--for SECONDS] [--work-dir DIR] [--balancer haproxy|alb|nginx] [--runtime command|compose]';

async function up(
  workDir: string,
  hosts: number,
  forSeconds: number,
  balancer: LabBalancer,
  runtime: 'command' | 'compose',
): Promise<void> {
  const lab = await startLab({
    hosts,
    workDir,
    balancer,
    runtime,
    report: (l) => console.log(l),
  });
  const env = Object.entries(lab.deployEnv())
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const configPath = path.join(workDir, 'deploy.yml');
  await writeFile(configPath, lab.config());
  const first = lab.hosts[0];
  console.log(`
lab is up (${lab.hosts.length} hosts) — Ctrl-C tears it down; it stops by itself in ${forSeconds} s
  frontend     ${lab.url}
  haproxy      ${lab.haproxySocket}  (backend ${lab.backend})${env ? `\n  deploy env   ${env}` : ''}
  hosts        ${lab.hosts.map((h) => `${h.name}=${h.address}:${h.sshPort}`).join('  ')}
  deploy.yml   ${configPath}
  ssh          ${first ? sshArgv(workDir, first, []).slice(0, -2).join(' ') : ''}
  shell        ${first ? nsenterArgv(first, ['bash']).join(' ') : ''}`);
  await new Promise((r) => setTimeout(r, forSeconds * 1000));
  await lab.stop();
  console.log('lab stopped (time is up)');
}

async function status(workDir: string): Promise<void> {
  const state = readState(workDir);
  if (!state) return console.log(`no lab running (no ${labFiles(workDir).state})`);
  console.log(
    `lab started ${state.startedAt} by pid ${state.ownerPid}${isAlive(state.ownerPid) ? '' : ' (gone)'}`,
  );
  for (const h of state.hosts) {
    const lb = h.balancer
      ? 'runs there'
      : await serverStatus(labFiles(workDir).haproxySocket, 'be_lab', h.name).catch(() => '?');
    console.log(
      `  ${h.name}  sshd pid ${h.pid} ${isAlive(h.pid) ? 'alive' : 'dead'}  haproxy ${lb ?? '?'}`,
    );
  }
  const hp = state.haproxyPid;
  console.log(`  haproxy pid ${hp ?? '-'} ${hp && isAlive(hp) ? 'alive' : 'dead'}`);
}

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      hosts: { type: 'string', default: '3' },
      for: { type: 'string', default: '3600' },
      'work-dir': { type: 'string', default: DEFAULT_WORK_DIR },
      balancer: { type: 'string', default: 'haproxy' },
      runtime: { type: 'string', default: 'command' },
    },
  });
  const balancer = values.balancer;
  if (balancer !== 'haproxy' && balancer !== 'alb' && balancer !== 'nginx')
    throw new Error(`--balancer must be haproxy, alb or nginx, got ${balancer}`);
  const runtime = values.runtime;
  if (runtime !== 'command' && runtime !== 'compose')
    throw new Error(`--runtime must be command or compose, got ${runtime}`);
  const workDir = path.resolve(values['work-dir']);
  const forSeconds = Number(values.for);
  if (!Number.isFinite(forSeconds) || forSeconds <= 0)
    throw new Error(`--for must be a positive number of seconds`);
  switch (positionals[0]) {
    case 'up':
      await up(workDir, Number(values.hosts), forSeconds, balancer, runtime);
      return 0;
    case 'down': {
      const cleaned = await cleanLeftovers(workDir);
      console.log(cleaned.length > 0 ? `stopped ${cleaned.join(', ')}` : 'nothing to clean');
      return 0;
    }
    case 'status':
      await status(workDir);
      return 0;
    default:
      console.error(usage);
      return 2;
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  },
);
