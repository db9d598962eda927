import * as z from 'zod';
import { configSchema } from './schema.js';

/**
 * The JSON Schema of deploy.yml, derived from the zod schema so the two can
 * never disagree. It describes the file as written (io: input): durations are
 * strings, defaulted keys are optional. Cross-key rules (duplicate names, the
 * start/stop/status commands of the command runtime) live in rules.ts only.
 */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' });
}
