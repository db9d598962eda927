import { describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../../src/config/json-schema.js';
import { loadConfig } from '../../../src/config/load.js';
import { loadConfigFromJson } from '../../../src/config/parse.js';
import { toDocument, toHostJson } from '../../../src/config/serialize.js';
import { minimal, problemsOf, writeConfig } from './temp-config.js';

const head = minimal.slice(0, minimal.indexOf('balancer:'));
const tail = minimal.slice(minimal.indexOf('runtime:'));
const haproxy = 'balancer: { kind: haproxy, socket: /run/haproxy/admin.sock, backend: be_api }\n';
const alb =
  'balancer: { kind: alb, target_group_arn: "arn:aws:elasticloadbalancing:eu-west-1:1:targetgroup/api/abc" }\n';
const withDrain = (balancer: string, drain: string): string =>
  `${head}${balancer}drain:\n${drain}${tail}`;

describe('drain.answer in deploy.yml', () => {
  it('defaults to 503', async () => {
    const config = await loadConfig(await writeConfig(minimal), { env: {} });
    expect(config.drain.answer).toBe(503);
  });

  it('takes 404 behind HAProxy, and it survives the trip to the host', async () => {
    const file = await writeConfig(withDrain(haproxy, '  answer: 404\n'));
    const config = await loadConfig(file, { env: {} });
    expect(config.drain.answer).toBe(404);
    expect(toDocument(config).drain).toMatchObject({ answer: 404 });
    expect(loadConfigFromJson(toHostJson(config), file, { env: {} }).drain.answer).toBe(404);
  });

  it('refuses any other status, saying which two there are', async () => {
    expect(await problemsOf(withDrain(haproxy, '  answer: 410\n'))).toEqual([
      'drain.answer: must be 503 or 404 (FILE:9:11)',
    ]);
  });

  it('refuses 404 behind an ALB or NLB, which never reads it as a soft stop', async () => {
    const problems = await problemsOf(withDrain(alb, '  answer: 404\n'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^drain\.answer: 404 is a soft stop only for HAProxy with http-check disable-on-404 \(an ALB or NLB reads 404 as unhealthy like 503, .*\): use 503 \(FILE:9:11\)$/,
    );
  });

  it('is in the JSON Schema as the two statuses, 503 by default', () => {
    const schema = configJsonSchema() as {
      properties: { drain: { properties: { answer: { default: number; anyOf: object[] } } } };
    };
    const answer = schema.properties.drain.properties.answer;
    expect(answer.default).toBe(503);
    expect(answer.anyOf).toEqual([
      { type: 'number', const: 503 },
      { type: 'number', const: 404 },
    ]);
  });
});
