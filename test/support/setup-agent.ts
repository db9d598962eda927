import { createHash } from 'node:crypto';

/** The agent bundle a setup test installs, and an agent that answers to it (command runtime). */
export const setupBundle = Buffer.from('agent');

export const setupAgent = {
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
