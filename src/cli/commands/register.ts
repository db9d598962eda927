import type { Command } from 'commander';

/** Each command registers itself; its domain code is imported lazily in its action. */
export type RegisterCommand = (program: Command) => void;
