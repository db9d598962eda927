import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { starterBalancer } from './balancer-kinds.js';

/**
 * What `deploy init` writes: a deploy.yml that loads cleanly and passes
 * `deploy check` as it stands, so the first edit starts from a working file.
 */
export const starterConfig = `# deploy.yml: see docs/configuration.md for every key.
# Check the drain timing with \`deploy check\` after every change.
service: app # [a-z0-9-]; names the lock and state paths on the hosts

ssh:
  user: deploy
  # identity_file: ~/.ssh/id_ed25519 # without it, ssh-agent is used
  known_hosts: ~/.ssh/known_hosts # strict: an unknown or changed host key is refused
  # sudo: true # a non-root user: setup's root steps through sudo -n (docs/ssh.md)

hosts:
  # target: the balancer's name for the host (default: address)
  - { name: app-1, address: 10.0.0.11 }
  - { name: app-2, address: 10.0.0.12 }

${starterBalancer}
drain:
  method: health # the health endpoint answers 503 while the drain marker exists
  overlap: 15s # keep serving this long after the balancer took the host out
  max_request: 30s # the longest request allowed to finish; below stop_timeout
  stop_timeout: 60s # SIGTERM → SIGKILL grace of the services

rollout:
  batch: 1 # or a percentage such as "25%"
  min_healthy: 1 # never drain below this many other healthy targets
  # detection 10s + overlap 15s + stop 60s + verify 90s stays under the
  # watchdog's restart delay, (failures_before_restart − 1) × every = 3m
  verify_timeout: 90s
  # the build, shipped to every host into releases/<id>/ before it is drained
  # (deploy rollout --release ID; or --artifact PATH): a .tar.gz, .tgz or directory
  artifact: build/app-{release}.tgz
  keep_releases: 5 # after a successful rollout; current and previous always stay

runtime:
  kind: command # start, stop and status run in releases/<id>/ with RELEASE set

services:
  - name: web
    check: { http: 'http://127.0.0.1:8080/health', timeout: 2s }
    # a Node service from the artifact (server.mjs at its top); HANDOFF_STATE is
    # host.state, where the pid file survives the switch to the next release
    start: setsid node server.mjs >>server.log 2>&1 </dev/null & echo $! >"$HANDOFF_STATE/web.pid"
    stop: >-
      pid=$(cat "$HANDOFF_STATE/web.pid" 2>/dev/null) || exit 0;
      kill "$pid" 2>/dev/null || exit 0;
      while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
    status: kill -0 "$(cat "$HANDOFF_STATE/web.pid" 2>/dev/null)" 2>/dev/null

watchdog:
  every: 60s
  failures_before_restart: 4

# env: # written into each release's .env (mode 0600); the commands get it exported
#   clear: { NODE_ENV: production }
#   secret: [DATABASE_URL] # read from the environment of 'deploy rollout', never printed
`;

/** Writes the starter; an existing file is only replaced with `force`. */
/** Written beside the starter deploy.yml; its first line points editors at it. */
export const SCHEMA_FILE = 'deploy.schema.json';

/**
 * `deploy init`: the starter deploy.yml, headed by a yaml-language-server line
 * naming the schema file written beside it (so an editor completes and checks
 * keys with no network). A missing folder is created; an existing deploy.yml
 * is kept unless --force, and then nothing is written at all.
 */
export async function writeStarterConfig(
  file: string,
  options: { force: boolean; schema: string },
): Promise<{ createdDir?: string; schemaFile: string }> {
  const dir = path.dirname(file);
  const schemaFile = path.join(dir, SCHEMA_FILE);
  let createdDir: string | undefined;
  try {
    createdDir = await mkdir(dir, { recursive: true });
  } catch (error) {
    // mkdir's EEXIST: something on the way is a file
    const code = (error as NodeJS.ErrnoException).code;
    throw writeProblem(file, code === 'EEXIST' ? { code: 'ENOTDIR' } : error, true);
  }
  try {
    await writeFile(file, `# yaml-language-server: $schema=./${SCHEMA_FILE}\n${starterConfig}`, {
      flag: options.force ? 'w' : 'wx',
    });
  } catch (error) {
    throw writeProblem(file, error, options.force);
  }
  try {
    await writeFile(schemaFile, options.schema);
  } catch (error) {
    throw writeProblem(schemaFile, error, true);
  }
  return { ...(createdDir ? { createdDir } : {}), schemaFile };
}

function writeProblem(file: string, error: unknown, force: boolean): UsageError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EEXIST' && !force)
    return new UsageError(`${file} already exists; pass --force to replace it`);
  const why: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    ENOTDIR: 'a part of the path is a file, not a folder',
    EROFS: 'the file system is read-only',
    EISDIR: 'it is a folder',
  };
  return new UsageError(`cannot write ${file}: ${why[code ?? ''] ?? code ?? String(error)}`);
}
