import { mkdir, writeFile } from 'node:fs/promises';
import { LEASE_TTL_MS, LEASE_VERSION, type LeaseRequest } from '../../../../src/protocol/lease.js';
import { leasePath } from '../../../../src/host/lease-file.js';
import { HostLeaseStore } from '../../../../src/rollout/lease/host-store.js';
import { testConfig } from '../../../support/config.js';
import { FakeClock } from '../../../support/fake-clock.js';
import { leaseConformance } from '../../../support/lease-conformance.js';
import { tempDir } from '../../host/helpers.js';
import { LeaseHosts } from './lease-hosts.js';

/**
 * The hosts store against the contract: three hosts whose agents keep their
 * pieces with the agent's own code in temp directories, on a fake clock (the
 * hosts' clock, which is the one that judges a heartbeat).
 */
leaseConformance('hosts store', async () => {
  const { dir, cleanup } = await tempDir('handoff-lease-contract-');
  const clock = new FakeClock();
  const hosts = new LeaseHosts(dir, clock);
  const fleet = testConfig().hosts;
  const everyPiece = async (text: string) => {
    for (const h of fleet) {
      await mkdir(hosts.stateOf(h.name), { recursive: true });
      await writeFile(leasePath(hosts.stateOf(h.name)), text);
    }
  };
  return {
    store: () => new HostLeaseStore(fleet, hosts.agentOf),
    expire: () => Promise.resolve(clock.advance(LEASE_TTL_MS + 1_000)),
    plant: everyPiece,
    plantAhead: (request: LeaseRequest, aheadMs: number) => {
      const at = new Date(clock.now() + aheadMs).toISOString();
      const { replaces: _, ...asked } = request;
      return everyPiece(
        JSON.stringify({
          ...asked,
          version: LEASE_VERSION,
          started: at,
          heartbeat: at,
          ttlMs: LEASE_TTL_MS,
        }),
      );
    },
    close: cleanup,
  };
});
