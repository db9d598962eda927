/**
 * `NAME=a,b`: which of a benchmark's parts to run (all when unset or empty),
 * to measure one again alone. A name it does not have is a mistake, said at
 * once rather than after the other parts ran.
 */
export function onlyNamed(
  variable: string,
  all: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const value = env[variable]?.trim();
  if (!value) return [...all];
  const named = value.split(',').map((n) => n.trim());
  const unknown = named.filter((n) => !all.includes(n));
  if (unknown.length > 0)
    throw new Error(`${variable}: no ${unknown.join(', ')} here; choose from ${all.join(', ')}`);
  return all.filter((n) => named.includes(n));
}
