import { setFlagsFromString } from 'node:v8';

/** From this many hosts in deploy.yml on, the orchestrator trades some CPU for memory. */
export const LARGE_FLEET = 200;

/**
 * V8 sizes its heap to the machine, not to what the program keeps: on a
 * 24 GB machine a 2 000-host rollout whose live objects are ~120 MB peaked
 * at 496–525 MB of RSS, most of it garbage V8 had no reason to collect yet
 * (after a full collection it lets the heap grow up to 4× what survived).
 * For a large fleet the heap may grow by half what survived
 * (`--heap-growing-percent=50`) and the young generation keeps the size it
 * has (`--semi-space-growth-factor=1`): ~307 MB for the same rollout, at
 * 5.7 instead of 4.4–5.0 ms of CPU per host (docs/benchmarks.md). V8 reads
 * both at every collection, so they take effect when set after start. A
 * heap flag the operator gave node (NODE_OPTIONS, or node's own arguments)
 * wins: then nothing is set.
 */
export function fitHeapToFleet(
  hosts: number,
  node: { readonly execArgv: readonly string[]; readonly env: NodeJS.ProcessEnv } = process,
  set: (flag: string) => void = setFlagsFromString,
): boolean {
  if (hosts < LARGE_FLEET) return false;
  const given = `${node.execArgv.join(' ')} ${node.env.NODE_OPTIONS ?? ''}`;
  if (OPERATOR_HEAP_FLAG.test(given)) return false;
  for (const flag of FLEET_HEAP_FLAGS) set(flag);
  return true;
}

export const FLEET_HEAP_FLAGS = ['--heap-growing-percent=50', '--semi-space-growth-factor=1'];

/** a flag that sizes V8's heap, in either spelling (`-` or `_`) */
const OPERATOR_HEAP_FLAG =
  /--(heap[-_]growing[-_]percent|semi[-_]space[-_]growth[-_]factor|max[-_]semi[-_]space[-_]size|max[-_]old[-_]space[-_]size|max[-_]heap[-_]size)\b/;
