import * as z from 'zod';
import { balancerSchema } from './balancer-kinds.js';
import { configSchema } from './schema.js';
import { httpCheckSchema } from './service-schema.js';

/**
 * The JSON Schema of deploy.yml, derived from the zod schema so the two can
 * never disagree. It describes the file as written (io: input): durations are
 * strings, defaulted keys are optional. Cross-key rules (duplicate names, the
 * start/stop/status commands of the command runtime) live in rules.ts only.
 */
/** What `deploy init`'s `# yaml-language-server: $schema=` line and editors know the schema by. */
export const SCHEMA_ID = 'urn:handoff:schema:deploy.yml';

export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(configSchema, {
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      if (ctx.zodSchema === balancerSchema) {
        discriminateOnKind(ctx.jsonSchema);
        return;
      }
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
  const { $schema, ...rest } = schema;
  // `balancer` (one) or `balancers` (a list): exactly one of the two (rules.ts)
  const required = (rest.required ?? []).filter((k) => k !== 'balancer');
  return {
    $schema,
    $id: SCHEMA_ID,
    ...rest,
    required,
    oneOf: [{ required: ['balancer'] }, { required: ['balancers'] }],
  };
}

/**
 * zod writes a discriminated union as `oneOf`: a typo under one `kind:` then
 * fails every branch and an editor reports a dozen keys. Chosen by `kind`
 * (`if`/`then`), only the branch of that kind is checked: one typo, one key.
 */
function discriminateOnKind(node: Record<string, unknown>): void {
  const branches = (node.oneOf ?? []) as Record<string, unknown>[];
  const kindOf = (b: Record<string, unknown>) =>
    ((b.properties as Record<string, { const?: unknown }> | undefined)?.kind?.const ??
      '') as string;
  const kinds = branches.map(kindOf);
  delete node.oneOf;
  Object.assign(node, {
    type: 'object',
    required: ['kind'],
    properties: { kind: { type: 'string', enum: kinds } },
    allOf: branches.map((branch, i) => ({
      if: { properties: { kind: { const: kinds[i] } }, required: ['kind'] },
      then: branch,
    })),
  });
}
