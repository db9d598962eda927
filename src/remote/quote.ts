import { UsageError } from '../errors.js';

/**
 * The one place that turns an argv array into a command string for a remote
 * POSIX shell. sshd hands the command to the login shell as `$SHELL -c <string>`,
 * so every argument is single-quoted: inside single quotes nothing is special,
 * not `$`, not backquotes, not newlines; only `'` itself has to leave the quotes
 * (`'\''`). The result is therefore correct for sh, bash, dash, ash and zsh.
 */

export function quoteArg(arg: string): string {
  // A NUL cannot be carried by a C string: the remote side would silently cut the argument.
  if (arg.includes('\0'))
    throw new UsageError('an argument contains a NUL byte, which no remote command can receive');
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * `['ls', '-l', 'a b']` → `'ls' '-l' 'a b'`. There is no environment
 * option: a value put on a remote command line (`env NAME='value' …`) is
 * visible to every user of the host in `ps`. What a command needs travels on
 * its stdin (the publish document) or lives in a file on the host.
 */
export function quoteArgv(argv: readonly string[]): string {
  if (argv.length === 0) throw new UsageError('cannot run an empty command (argv is empty)');
  return argv.map(quoteArg).join(' ');
}
