/** Why `value` cannot go into `.env`, naming no part of it (it may be a secret). */
export function envValueProblem(value: string): string | undefined {
  if (/[\n\r]/.test(value)) return 'the value contains a line break, which .env cannot carry';
  if (value.includes("'"))
    return "the value contains a single quote ('), which .env cannot carry for both sh and compose";
  if (value.includes('\0')) return 'the value contains a NUL byte, which .env cannot carry';
  return undefined;
}
