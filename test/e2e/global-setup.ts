import { buildBundle } from '../../scripts/build.js';

/** e2e tests run the real program, as a host runs it: the bundled single file. */
export default async function setup(): Promise<void> {
  await buildBundle();
}
