import { afterAll, inject } from 'vitest';
import { removeScratch } from '../scratch.js';

// os.tmpdir() reads TMPDIR on every call, and child processes inherit it: every
// temp directory a test makes, and every process it starts there, is under the
// run's scratch root, where the global teardown looks for leftovers.
process.env.TMPDIR = inject('scratchRoot');

// what this file's fixtures made (test/support/scratch.ts) goes when the file ends
afterAll(removeScratch);
