import { describe, expect, it } from 'vitest';
import { noProtocol } from '../../src/agent-client/refusal.js';
import { awsMessage } from '../../src/aws/errors.js';
import { parseSocketAddress } from '../../src/balancer/haproxy/address.js';
import { garbage } from '../../src/balancer/haproxy/runtime-api.js';
import { clip } from '../../src/host/checks/http-headers.js';
import { lastLine } from '../../src/host/runtime/common.js';
import { nodeVersionProblem } from '../../src/node-version.js';
import { excerpt, secretMask } from '../../src/safe-text.js';

// 38 characters, as a GitHub token is (the review's reproduction)
const token = 'ghp_R3alS3cretT0kenAbCdEfGhIjKlMnOpQrS';
secretMask.add(token);
/** a stderr line whose 200-character cut falls inside the token */
const line = `${'x'.repeat(180)} invalid token ${token} (401)`;

describe('output cut to a length', () => {
  it('is masked before it is cut: no part of a secret survives the cut', () => {
    // masked first the line is 204 characters: the cut takes the tail, not the token
    expect(excerpt(line, 200)).toBe(`${'x'.repeat(180)} invalid token *** (…`);
  });

  it('so is a URL password, and the line asked for is the first or the last', () => {
    expect(excerpt('\n  first https://u:pw@h/x\nlast\n', 80)).toBe('first https://u:***@h/x');
    expect(excerpt(`one\n${line}\n`, 200, 'last')).not.toContain('ghp_');
  });

  it('the agent’s last line of a command’s stderr carries no part of a secret', () => {
    expect(lastLine(`starting\n${line}\n`)).not.toContain('ghp_');
  });

  it('nor does the hint of an agent that answered no protocol result', () => {
    const refusal = noProtocol('web-1', '/opt/handoff/bin/deploy', 'status', 1, `${line}\n`);
    expect(refusal.message).toContain('invalid token');
    expect(refusal.message).not.toContain('ghp_');
  });
});

describe('every other cut of text from outside goes through the same excerpt', () => {
  const long = `${'x'.repeat(40)} ${token} trailing`;

  it('an AWS SDK message', () => {
    expect(awsMessage(new Error(`${'y'.repeat(150)} ${token}`))).not.toContain('ghp_');
  });

  it('an answer on a socket that is not haproxy’s', () => {
    const refusal = garbage(parseSocketAddress('/run/haproxy.sock'), 'show servers state', long);
    expect(refusal.message).toContain(`${'x'.repeat(40)} ***`);
    expect(refusal.message).not.toContain('ghp_');
  });

  it('a node that did not answer a version', () => {
    expect(nodeVersionProblem(`${'z'.repeat(50)} ${token}`, 'web-1', 'fix')).not.toContain('ghp_');
  });

  it('a release header, clipped for display', () => {
    expect(clip(`${'r'.repeat(120)}-${token}`)).toBe(`${'r'.repeat(120)}-***`);
  });
});
