/** Where a value sits in deploy.yml: the shapes the document and its checks share. */
export type KeyPath = readonly PropertyKey[];

export interface Where {
  /** `file:line:col` */
  readonly location: string;
  /** offset in the text, to list problems in the order they appear */
  readonly offset: number;
}

/** A YAML parser's message without its own position (ours comes with the problem). */
export function firstLine(message: string): string {
  return message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? message;
}

/** A problem a rule between keys found, at its key path. */
export interface RuleProblem {
  readonly path: KeyPath;
  readonly message: string;
}
