/** The images of `compose config`'s output (variables already filled in), each once. */
export async function composeImages(resolved: string): Promise<string[]> {
  // imported here: only a compose prepare reads YAML on a host
  const { parse } = await import('yaml');
  const doc = parse(resolved) as { services?: Record<string, { image?: unknown } | null> } | null;
  const images = Object.values(doc?.services ?? {}).map((s) => s?.image);
  return [...new Set(images.filter((i): i is string => typeof i === 'string' && i !== ''))];
}
