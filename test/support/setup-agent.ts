import { createHash } from 'node:crypto';
import type { HostAgent } from '../../src/agent-client/host-agent.js';
import type { AgentOp, ArgsOf, ResultOf } from '../../src/protocol/ops.js';

/** The agent bundle a setup test installs, and an agent that answers to it (command runtime). */
export const setupBundle = Buffer.from('agent');

const answers = {
  hello: () =>
    Promise.resolve({
      version: '0',
      protocol: 1,
      sha256: createHash('sha256').update(setupBundle).digest('hex'),
      node: 'v20',
    }),
  // a command-runtime host: nothing about compose
  status: () =>
    Promise.resolve({
      host: 'web-1',
      release: null,
      previous: null,
      releases: [],
      lock: { locked: false },
      draining: null,
      watchdog: null,
    }),
};

/** answers hello and status, what setup asks (setup.ts); `sha256`: its hello names another build */
export function agentAnswering(sha256?: string): Pick<HostAgent, 'run'> {
  return {
    run: async <K extends AgentOp>(op: K, _args: ArgsOf<K>): Promise<ResultOf<K>> => {
      if (op === 'hello') {
        const hello = await answers.hello();
        return (sha256 === undefined ? hello : { ...hello, sha256 }) as ResultOf<K>;
      }
      if (op === 'status') return (await answers.status()) as ResultOf<K>;
      throw new Error(`the setup agent answers no ${op}`);
    },
  };
}

export const setupAgent = agentAnswering();
