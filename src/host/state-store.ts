import { open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { OperationError, messageOf } from '../errors.js';
import { writeFileAtomic } from './atomic.js';
import { isMissing } from './layout.js';

/** Anything with a throwing `parse`: a zod schema, or a hand-written validator. */
export interface Parser<T> {
  parse(value: unknown): T;
}

export interface StateRead<T> {
  /** undefined when the document is missing or unusable */
  readonly value: T | undefined;
  /**
   * Set when the file exists but is not a valid document. The caller decides
   * whether that is worth a warning; the store never throws for it, because a
   * watchdog that dies on a torn counter file never heals anything again.
   */
  readonly problem?: string;
}

/**
 * JSON documents in host.state (tmpfs): counters, the drain marker, holders.
 * Writes go through temp file + rename, so a concurrent reader never sees half
 * a document. Names are relative to the state directory, or absolute.
 */
export class StateStore {
  constructor(readonly dir: string) {}

  path(name: string): string {
    return path.resolve(this.dir, name);
  }

  async read<T>(name: string, parser: Parser<T>): Promise<StateRead<T>> {
    return readJsonFile(this.path(name), parser);
  }

  async write(name: string, value: unknown): Promise<void> {
    await writeFileAtomic(this.path(name), `${JSON.stringify(value, null, 2)}\n`);
  }

  /**
   * Overwrite the existing document in place, compact: a document that fits the
   * old one's blocks needs no new one, so this works on a full file system where
   * `write` (a temp file) cannot. Not atomic — a crash mid-write tears it, and a
   * reader then sees an invalid document — so it is only the fallback.
   */
  async overwrite(name: string, value: unknown): Promise<void> {
    const bytes = Buffer.from(`${JSON.stringify(value)}\n`);
    const handle = await open(this.path(name), 'r+');
    try {
      await handle.write(bytes, 0, bytes.length, 0);
      await handle.truncate(bytes.length);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /** true when there was something to remove */
  async remove(name: string): Promise<boolean> {
    return removeFile(this.path(name));
  }
}

export async function readJsonFile<T>(file: string, parser: Parser<T>): Promise<StateRead<T>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (isMissing(error)) return { value: undefined };
    throw new OperationError(`cannot read ${file}: ${messageOf(error)}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // never echo the content: it is ours, but a half-written file can hold anything
    return {
      value: undefined,
      problem: `${file} is not valid JSON (${text.length} bytes); ignoring it`,
    };
  }
  try {
    return { value: parser.parse(json) };
  } catch (error) {
    return {
      value: undefined,
      problem: `${file} has an unexpected shape (${firstIssue(error)}); ignoring it`,
    };
  }
}

export async function removeFile(file: string): Promise<boolean> {
  try {
    await rm(file);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw new OperationError(`cannot remove ${file}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/** zod errors carry `issues`; anything else gives its first message line */
function firstIssue(error: unknown): string {
  const issues = (error as { issues?: unknown } | null)?.issues;
  if (Array.isArray(issues) && issues.length > 0) {
    const issue = issues[0] as { path?: unknown; message?: unknown };
    const where =
      Array.isArray(issue.path) && issue.path.length > 0
        ? `${issue.path.map(String).join('.')}: `
        : '';
    return `${where}${String(issue.message)}`;
  }
  const message = messageOf(error);
  return message.split('\n')[0] ?? message;
}
