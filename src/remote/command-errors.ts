import { OperationError } from '../errors.js';

/**
 * How a command is named in an error: the program and its first words only,
 * because later arguments can carry payloads that do not belong in a log.
 */
export function describeCommand(argv: readonly string[]): string {
  const shown = argv.slice(0, 3).join(' ');
  const more = argv.length > 3 ? ' …' : '';
  return shown.length > 80 ? `${shown.slice(0, 79)}…` : `${shown}${more}`;
}

export function commandTimedOut(host: string, argv: readonly string[], ms: number): OperationError {
  return new OperationError(
    `${host}: '${describeCommand(argv)}' ran longer than ${ms} ms and was killed; raise its timeout or check why it hangs on the host`,
  );
}
