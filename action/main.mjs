/**
 * The GitHub Action (action.yml), run by the runner's node24 with the inputs
 * as INPUT_* variables. It installs handoff-deploy with npm into RUNNER_TEMP,
 * masks the SSH key and loads it into an ssh-agent of its own (never onto
 * disk), adds known_hosts to ~/.ssh/known_hosts, runs `deploy rollout --json`
 * with the runner's node, keeps the NDJSON in RUNNER_TEMP, and sets the
 * outputs from its result line. The step summary is deploy's own
 * (GITHUB_STEP_SUMMARY); a run that ends before a rollout adds one line.
 * A cancel (the runner's SIGINT, then SIGTERM; SIGHUP too) is passed on to deploy, which
 * finishes the current step, undoes it and ends with exit 3 or 1.
 * Plain JavaScript with no dependencies: this file is what runs, unbuilt.
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';

const SELF = fileURLToPath(import.meta.url);
const HERE = path.dirname(SELF);
const RESULTS = { 0: 'deployed', 1: 'failed', 2: 'usage', 3: 'blocked', 4: 'partial' };

/** An input as the runner passes it: INPUT_ and the name upper-cased, spaces as _. */
function input(name, env = process.env) {
  return (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}

/** A mistake in the inputs: one line, exit 2, nothing installed or run. */
class InputError extends Error {}

/** `deploy rollout` flags from the inputs, each checked only for being given. */
function rolloutArgs(env = process.env) {
  const release = input('release', env);
  if (!release) throw new InputError('input release is required (e.g. release: ${{ github.sha }})');
  const flag = (name, option) => {
    const value = input(name, env);
    return value ? [option, value] : [];
  };
  const dryRun = input('dry-run', env);
  if (!['', 'true', 'false'].includes(dryRun))
    throw new InputError(`input dry-run is '${dryRun}': write true or false`);
  return [
    'rollout',
    '--release',
    release,
    '--json',
    ...flag('config', '--config'),
    ...flag('destination', '--destination'),
    ...flag('hosts', '--hosts'),
    ...flag('batch', '--batch'),
    ...flag('wait-lease', '--wait-lease'),
    ...(dryRun === 'true' ? ['--dry-run'] : []),
  ];
}

/** Each line of a secret masked (GitHub masks line by line), before anything else is printed. */
function mask(secret) {
  for (const line of secret.split(/\r?\n/))
    if (line.trim()) process.stdout.write(`::add-mask::${line}\n`);
}

/** npm installs the package into its own prefix; the path of its deploy entry. */
function install(spec, prefix) {
  const version = JSON.parse(readFileSync(path.join(HERE, '..', 'package.json'), 'utf8')).version;
  const what = spec || `handoff-deploy@${version}`;
  process.stdout.write(`installing ${what}\n`);
  execFileSync(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      what,
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  return path.join(prefix, 'lib', 'node_modules', 'handoff-deploy', 'bin', 'deploy.js');
}

/** An ssh-agent holding the key, its socket in `dir`; the key goes in on stdin. */
function startAgent(key, dir) {
  const socket = path.join(dir, 'agent.sock');
  const started = execFileSync('ssh-agent', ['-a', socket, '-s'], { encoding: 'utf8' });
  const pid = Number(/SSH_AGENT_PID=(\d+)/.exec(started)?.[1]);
  const stop = () => {
    try {
      process.kill(pid);
    } catch {
      // already gone
    }
  };
  try {
    execFileSync('ssh-add', ['-q', '-'], {
      input: key.endsWith('\n') ? key : `${key}\n`,
      env: { ...process.env, SSH_AUTH_SOCK: socket },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
  } catch (error) {
    stop();
    const why =
      String(error.stderr ?? '')
        .trim()
        .split('\n')[0] || 'ssh-add failed';
    throw new InputError(`input ssh-private-key: ssh-add refused it: ${why}`);
  }
  return { socket, stop };
}

/** known_hosts lines added to ~/.ssh/known_hosts, each once. */
async function addKnownHosts(text) {
  const dir = path.join(os.homedir(), '.ssh');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, 'known_hosts');
  const have = await readFile(file, 'utf8').catch(() => '');
  const present = new Set(have.split('\n').map((l) => l.trim()));
  const add = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !present.has(l));
  if (add.length === 0) return;
  const joined = `${have && !have.endsWith('\n') ? '\n' : ''}${add.join('\n')}\n`;
  await writeFile(file, joined, { flag: 'a', mode: 0o600 });
}

/** deploy, its stdout into `ndjson`, stderr to the log; the runner's signals passed on. */
function runDeploy(entry, args, ndjson, env) {
  const child = spawn(process.execPath, [entry, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
    // its own process group: a signal reaches it once, from here
    detached: true,
  });
  const file = createWriteStream(ndjson, { mode: 0o600 });
  child.stdout.pipe(file);
  // the log shows what a human run would: each event's message (deploy masked it)
  createInterface({ input: child.stdout }).on('line', (line) => {
    const text = logLine(line);
    if (text) process.stdout.write(`${text}\n`);
  });
  const forward = (signal) => () => child.kill(signal);
  process.on('SIGINT', forward('SIGINT'));
  process.on('SIGTERM', forward('SIGTERM'));
  process.on('SIGHUP', forward('SIGHUP'));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      file.end(() => resolve(code ?? (signal === 'SIGKILL' ? 137 : 1)));
    });
  });
}

/** An NDJSON event as a log line (warnings and errors as annotations); debug and the result: none. */
function logLine(line) {
  let e;
  try {
    e = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof e?.message !== 'string' || e.level === 'debug' || e.event === 'result')
    return undefined;
  const text = `${e.host ? `${e.host}: ` : ''}${e.message}`.replace(/\r?\n/g, ' ');
  // a workflow command's data: % and line breaks escaped as GitHub reads them
  const data = text.replace(/%/g, '%25');
  if (e.level === 'error') return `::error::${data}`;
  if (e.level === 'warn') return `::warning::${data}`;
  return text;
}

/** The NDJSON's last line, deploy's result (docs/json.md), or undefined. */
function lastResult(text) {
  const lines = text.trim().split('\n');
  try {
    const last = JSON.parse(lines[lines.length - 1] ?? '');
    return last?.event === 'result' ? last : undefined;
  } catch {
    return undefined;
  }
}

/** The action's outputs from deploy's exit code and result. */
function outputsOf(code, result, ndjson) {
  const hosts = Array.isArray(result?.hosts) ? result.hosts : [];
  const total = result?.receipt?.total;
  let outcome = RESULTS[code] ?? 'failed';
  if (result?.cancelled) outcome = 'cancelled';
  else if (result?.superseded) outcome = 'superseded';
  return {
    result: outcome,
    'exit-code': String(code),
    release: typeof result?.release === 'string' ? result.release : '',
    'hosts-deployed': String(hosts.filter((h) => h.result === 'deployed').length),
    requests: total ? String(total.requests) : '',
    'failed-requests': total ? String(total.failed) : '',
    'elapsed-ms': result?.elapsed_ms === undefined ? '' : String(result.elapsed_ms),
    error: typeof result?.error === 'string' ? result.error : '',
    ndjson,
  };
}

/** name<<DELIMITER lines, so an output may hold a newline. */
function writeOutputs(outputs, file) {
  if (!file) return;
  const text = Object.entries(outputs)
    .map(([name, value]) => {
      const end = `ghadelimiter_${randomUUID()}`;
      return `${name}<<${end}\n${value}\n${end}\n`;
    })
    .join('');
  appendFileSync(file, text);
}

/** When deploy wrote no summary (it stopped before a rollout): one line saying why. */
function summarizeEarlyStop(summary, sizeBefore, outputs, release) {
  if (!summary || sizeOf(summary) > sizeBefore) return;
  const why = outputs.error.split('\n').join(' · ') || `exit ${outputs['exit-code']}`;
  appendFileSync(summary, `### deploy rollout ${release}: ${outputs.result}\n\n${why}\n`);
}

function sizeOf(file) {
  try {
    return file ? readFileSync(file).length : 0;
  } catch {
    return 0;
  }
}

async function main(env = process.env) {
  const key = input('ssh-private-key', env);
  if (key) mask(key);
  const args = rolloutArgs(env);
  const temp = env.RUNNER_TEMP || os.tmpdir();
  const dir = path.join(temp, `handoff-${randomUUID().slice(0, 8)}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const knownHosts = input('known-hosts', env);
  if (knownHosts) await addKnownHosts(knownHosts);
  const agent = key ? startAgent(key, dir) : undefined;
  try {
    const entry = install(input('package', env), path.join(dir, 'prefix'));
    const ndjson = path.join(dir, 'rollout.ndjson');
    const summaryBefore = sizeOf(env.GITHUB_STEP_SUMMARY);
    const childEnv = { ...env, ...(agent ? { SSH_AUTH_SOCK: agent.socket } : {}) };
    const code = await runDeploy(entry, args, ndjson, childEnv);
    const outputs = outputsOf(code, lastResult(await readFile(ndjson, 'utf8')), ndjson);
    writeOutputs(outputs, env.GITHUB_OUTPUT);
    summarizeEarlyStop(env.GITHUB_STEP_SUMMARY, summaryBefore, outputs, args[2]);
    process.stdout.write(`deploy rollout: ${outputs.result} (exit ${code}); NDJSON in ${ndjson}\n`);
    return code;
  } finally {
    agent?.stop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      const line = error instanceof Error ? error.message.split('\n')[0] : String(error);
      process.stdout.write(`::error::${line}\n`);
      process.exitCode = error instanceof InputError ? 2 : 1;
    },
  );
}
