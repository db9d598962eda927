import type { LabTargetGroup } from '../../scripts/lab/elbv2/target-group.js';

/**
 * Every state each lab target group reports for each target id while `run`
 * runs, sampled every 100 ms with repeats folded: by group name, one list per id.
 */
export async function watchGroupStates<T>(
  groups: readonly LabTargetGroup[],
  ids: readonly string[],
  run: () => Promise<T>,
): Promise<{ result: T; seen: Map<string, string[][]> }> {
  const seen = new Map(groups.map((g) => [g.name, ids.map(() => [] as string[])]));
  let done = false;
  const sampleOne = async (g: LabTargetGroup): Promise<void> => {
    const listed = (await g.health([], Date.now())) as {
      Target: { Id: string };
      TargetHealth: { State: string };
    }[];
    ids.forEach((id, i) => {
      const state = listed.find((d) => d.Target.Id === id)?.TargetHealth.State ?? 'unused';
      const states = seen.get(g.name)?.[i];
      if (states?.at(-1) !== state) states?.push(state);
    });
  };
  const sample = async (): Promise<void> => {
    while (!done) {
      await Promise.all(groups.map(sampleOne));
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const sampling = sample();
  try {
    return { result: await run(), seen };
  } finally {
    done = true;
    await sampling;
  }
}
