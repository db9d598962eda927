import type { Config } from '../config/types.js';
import { ConfigError } from '../errors.js';
import { envValueProblem, type EnvVars } from '../host/release-env.js';
import { secretMask, secretValueProblem } from '../safe-text.js';

/**
 * The operator's variables of this rollout's `.env`: `env.clear` as written,
 * each `env.secret` read from the orchestrator's environment now (a CI job's
 * secrets, like Kamal's). Read once, before preflight: a missing secret or a
 * value `.env` cannot carry, or one too short to mask, stops the rollout with exit 2, naming the variable
 * and never its value, before any host is touched. Every secret value is
 * added to the process's mask (safe-text.ts) before anything can print it.
 */
export function readReleaseEnv(
  config: Config,
  environment: Readonly<Record<string, string | undefined>>,
): EnvVars {
  const vars: Record<string, string> = { ...config.env.clear };
  const problems: { path: string; message: string }[] = [];
  config.env.secret.forEach((name, i) => {
    const value = environment[name];
    if (value === undefined) {
      problems.push({
        path: `env.secret[${i}]`,
        message: `${name} is not set in this environment; export it (a CI secret) before the rollout`,
      });
      return;
    }
    const short = secretValueProblem(name, value);
    if (short) {
      problems.push({ path: `env.secret[${i}]`, message: short });
      return;
    }
    secretMask.add(value);
    const problem = envValueProblem(value);
    if (problem) problems.push({ path: `env.secret[${i}]`, message: `${name}: ${problem}` });
    else vars[name] = value;
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return vars;
}
