import * as z from 'zod';
import { duration, envName, text } from './kit/fields.js';

/**
 * An `env.secret` entry: a name read from the orchestrator's environment, or
 * a mapping that also says where its value comes from — AWS Secrets Manager
 * (`aws_secret`, with `key` for one field of a JSON secret), SSM Parameter
 * Store (`ssm`) or a `command` whose stdout is the value. Which one is a rule
 * between keys (env-rules.ts), so a mistake names the key, not a union.
 */
const sourced = z
  .strictObject({
    name: envName('the variable written into .env'),
    aws_secret: text('AWS Secrets Manager: the secret id or ARN').optional(),
    key: text("with aws_secret: the field of the secret's JSON to take").optional(),
    ssm: text('SSM Parameter Store: the parameter name (SecureString is decrypted)').optional(),
    region: text("with aws_secret or ssm: the region (default: the SDK's chain)").optional(),
    command: z
      .union([
        text('split on spaces, run with no shell'),
        z.array(text('one argument')).min(1, { error: 'must name a program' }),
      ])
      .optional()
      .meta({ description: 'a program whose stdout is the value: op read …, vault kv get …' }),
    timeout: duration('with command: how long it may run').optional(),
  })
  .meta({ description: 'a secret and where its value comes from (docs/configuration.md#secrets)' });

export const secretEntry = z.union([
  envName("the name of a variable read from the orchestrator's environment"),
  sourced,
]);
