import * as z from 'zod';
import { envName, text } from './kit/fields.js';
import { ETCD_ENDPOINT, ETCD_ENDPOINT_RULE } from './kit/names.js';

/**
 * `lease:`: where the fleet lease lives (docs/lease.md). The hosts store (a
 * piece on every host) is the default and needs nothing; etcd needs its
 * endpoints, here or in HANDOFF_ETCD_ENDPOINTS. The password is never written
 * here: only the name of the variable that holds it.
 */

export const leaseStores = ['hosts', 'etcd'] as const;

const endpoint = z
  .string()
  .regex(ETCD_ENDPOINT, { error: ETCD_ENDPOINT_RULE })
  .meta({ description: 'an etcd client URL', examples: ['https://etcd-1:2379'] });

export const leaseSchema = z
  .strictObject({
    store: z
      .enum(leaseStores, { error: `must be one of ${leaseStores.join(', ')}` })
      .default('hosts')
      .meta({ description: 'hosts: a piece on every host (default); etcd: one key in etcd' }),
    endpoints: z.array(endpoint).min(1, { error: 'needs at least one endpoint' }).optional().meta({
      description:
        "etcd's client URLs, tried in order; without them, HANDOFF_ETCD_ENDPOINTS (comma-separated)",
    }),
    prefix: z
      .string()
      .regex(/^\/[A-Za-z0-9._/-]*[^/]$|^\/$/, {
        error: 'must be an etcd key prefix like /handoff (starts with /, no trailing /)',
      })
      .default('/handoff')
      .meta({ description: 'the lease is the key <prefix>/<service>/lease' }),
    tls: z
      .strictObject({
        ca: text("the CA that signed etcd's certificate (a PEM file)").optional(),
        cert: text('a client certificate (PEM), with key').optional(),
        key: text("the client certificate's private key (PEM)").optional(),
      })
      .optional()
      .meta({ description: 'TLS for https endpoints; files on the machine that deploys' }),
    username: text('an etcd user (etcd auth); the password comes from password_env').optional(),
    password_env: envName('the variable holding the etcd password')
      .default('HANDOFF_ETCD_PASSWORD')
      .meta({ description: 'the variable holding the etcd password; never printed' }),
  })
  .superRefine((lease, ctx) => {
    if (lease.tls && (lease.tls.cert === undefined) !== (lease.tls.key === undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['tls', lease.tls.cert === undefined ? 'cert' : 'key'],
        message: 'cert and key go together: give both, or neither',
      });
    if (lease.store === 'hosts')
      for (const key of ['endpoints', 'tls', 'username'] as const)
        if (lease[key] !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: 'only with store: etcd (the hosts store needs nothing)',
          });
  })
  .meta({ description: 'where the fleet lease lives (docs/lease.md)' });
