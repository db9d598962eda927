import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseText } from '../../config/document.js';

export interface KeyLine {
  readonly file: string;
  readonly line: number;
}

/**
 * Where `drain.overlap` is written in deploy.yml, for an annotation on that
 * line. Undefined when the file cannot be read or the key is not in it (a
 * default): an annotation without a line beats one on the wrong line.
 */
export function keyLocator(configPath: string, cwd: string): (key: string) => KeyLine | undefined {
  let text: string;
  try {
    text = readFileSync(configPath, 'utf8');
  } catch {
    return () => undefined;
  }
  const relative = path.relative(cwd, path.resolve(cwd, configPath));
  const file = relative.startsWith('..') ? configPath : relative;
  const doc = parseText(text, file);
  return (key) => {
    const segments = key.split('.');
    const last = segments.pop();
    if (last === undefined) return undefined;
    const where = doc.locate(segments, last);
    const line = where ? /:(\d+):\d+$/.exec(where.location)?.[1] : undefined;
    if (line === undefined) return undefined;
    // a missing key is located at its parent: only a line that holds the key counts
    const lineText = text.split('\n')[Number(line) - 1] ?? '';
    return lineText.includes(last) ? { file, line: Number(line) } : undefined;
  };
}
