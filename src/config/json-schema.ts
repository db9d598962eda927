import * as z from 'zod';
import { configSchema } from './schema.js';
import { httpCheckSchema } from './service-schema.js';

/**
 * The JSON Schema of deploy.yml, derived from the zod schema so the two can
 * never disagree. It describes the file as written (io: input): durations are
 * strings, defaulted keys are optional. Cross-key rules (duplicate names, the
 * start/stop/status commands of the command runtime) live in rules.ts only.
 */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(configSchema, {
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      // parsed through a preprocess (one object schema, for precise errors), written
      // either way: "url" or { url, … }; the schema must accept the short form too
      if (ctx.zodSchema !== httpCheckSchema) return;
      const { description, ...long } = ctx.jsonSchema;
      for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
      Object.assign(ctx.jsonSchema, {
        ...(description === undefined ? {} : { description }),
        anyOf: [{ type: 'string', format: 'uri' }, long],
      });
    },
  });
}
