import { UsageError } from '../errors.js';

/**
 * The one place that turns an argv array into a command string for a remote
 * POSIX shell. sshd hands the command to the login shell as `$SHELL -c <string>`,
 * so every argument is single-quoted: inside single quotes nothing is special,
 * not `$`, not backquotes, not newlines; only `'` itself has to leave the quotes
 * (`'\''`). The result is therefore correct for sh, bash, dash, ash and zsh.
 */

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function quoteArg(arg: string): string {
  // A NUL cannot be carried by a C string: the remote side would silently cut the argument.
  if (arg.includes('\0'))
    throw new UsageError('an argument contains a NUL byte, which no remote command can receive');
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * `['ls', '-l', 'a b']` → `'ls' '-l' 'a b'`; with env `{ RELEASE: 'r1' }` →
 * `env RELEASE='r1' 'ls' …`. The environment goes through `env(1)` because
 * sshd drops SSH `env` requests unless AcceptEnv lists the name, and a quoted
 * command word stops the shell from reading `A=B` in argv[0] as an assignment.
 */
export function quoteArgv(argv: readonly string[], env?: Readonly<Record<string, string>>): string {
  if (argv.length === 0) throw new UsageError('cannot run an empty command (argv is empty)');
  const words = argv.map(quoteArg);
  const assignments = Object.entries(env ?? {}).map(([name, value]) => {
    if (!ENV_NAME.test(name))
      throw new UsageError(
        `environment variable name '${name}' is not valid: use letters, digits and _, not starting with a digit`,
      );
    return `${name}=${quoteArg(value)}`;
  });
  return assignments.length > 0 ? ['env', ...assignments, ...words].join(' ') : words.join(' ');
}
