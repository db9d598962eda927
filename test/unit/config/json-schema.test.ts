import { describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../../src/config/json-schema.js';

type Node = Record<string, unknown>;
const at = (node: unknown, ...keys: string[]): Node =>
  keys.reduce<Node>((n, k) => (n[k] ?? {}) as Node, node as Node);

describe('the JSON Schema of deploy.yml', () => {
  it('accepts an http check written as a URL or as a mapping', () => {
    const check = at(configJsonSchema(), 'properties', 'services', 'items', 'properties', 'check');
    const http = at(check, 'properties', 'http');
    const [short, long] = http.anyOf as Node[];
    expect(short).toEqual({ type: 'string', format: 'uri' });
    expect(long).toMatchObject({ type: 'object', required: ['url'] });
    expect(Object.keys(at(long, 'properties'))).toEqual(['url', 'expect_status', 'expect_release']);
    expect(Object.keys(at(check, 'properties'))).toContain('expect_release');
  });

  it("lists stop_proof among a service's keys", () => {
    const service = at(configJsonSchema(), 'properties', 'services', 'items', 'properties');
    expect(service.stop_proof).toMatchObject({ type: 'boolean' });
  });
});
