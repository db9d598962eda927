import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LabLayout } from '../layout.js';
import { labFiles } from '../layout.js';
import {
  errorXml,
  faultFor,
  members,
  parseForm,
  resultXml,
  type FaultKind,
  type Params,
  type XmlValue,
} from './protocol.js';
import { LabMetrics } from './metrics.js';
import type { GroupType } from './network.js';
import { ApiError, LabTargetGroup } from './target-group.js';

export const ELBV2_PORT = 4566;
export const LAB_REGION = 'us-east-1';

export interface Elbv2Endpoint {
  /** what AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING_V2 (and _CLOUDWATCH) is set to */
  readonly url: string;
  /** the first group: the one of lb-a, the lab's first HAProxy */
  readonly group: LabTargetGroup;
  /** every group: with the lab's pair, a second one backed by lb-b (another ALB, say internal) */
  readonly groups: readonly LabTargetGroup[];
  /** answer the next `count` calls of `action` with this fault instead */
  inject(action: string, kind: FaultKind, count: number): void;
  /** calls per action so far, faults included */
  readonly calls: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

type Handler = (params: Params, groups: Groups) => Promise<Record<string, XmlValue>>;

/** the endpoint's groups, found by their ARN (or their load balancer's) as AWS does */
class Groups {
  constructor(readonly all: readonly LabTargetGroup[]) {}
  byArn(arn: string | undefined): LabTargetGroup {
    const g = this.all.find((x) => x.arn === arn);
    if (!g) throw new ApiError('TargetGroupNotFound', `One or more target groups not found`);
    return g;
  }
  byLoadBalancer(arn: string | undefined): LabTargetGroup {
    const g = this.all.find((x) => x.loadBalancerArn === arn);
    if (!g) throw new ApiError('LoadBalancerNotFound', 'One or more load balancers not found');
    return g;
  }
}

const targetsOf = (params: Params) =>
  members(params, 'Targets').map((t) => ({
    Id: t.Id ?? '',
    ...(t.Port !== undefined ? { Port: Number(t.Port) } : {}),
  }));

const handlers: Record<string, Handler> = {
  DescribeTargetGroups: (p, gs) => {
    const arns = members(p, 'TargetGroupArns').map((m) => m['']);
    return Promise.resolve({ TargetGroups: arns.map((arn) => gs.byArn(arn).describeGroup()) });
  },
  DescribeTargetGroupAttributes: (p, gs) =>
    Promise.resolve({ Attributes: gs.byArn(p.get('TargetGroupArn')).groupAttributes() }),
  DescribeLoadBalancerAttributes: (p, gs) => {
    const g = gs.byLoadBalancer(p.get('LoadBalancerArn'));
    // LoadBalancerAttribute: idle_timeout.timeout_seconds is an Application Load Balancer's
    if (g.type === 'network')
      return Promise.resolve({
        Attributes: [{ Key: 'load_balancing.cross_zone.enabled', Value: 'false' }],
      });
    // HAProxy's `timeout server`: how long it keeps an idle connection to a host
    return Promise.resolve({ Attributes: [{ Key: 'idle_timeout.timeout_seconds', Value: '30' }] });
  },
  // LoadBalancer, Type: "The type of load balancer" (application | network | gateway)
  DescribeLoadBalancers: (p, gs) => {
    const arns = members(p, 'LoadBalancerArns').map((m) => m['']);
    return Promise.resolve({
      LoadBalancers: arns.map((arn): XmlValue => {
        const g = gs.byLoadBalancer(arn);
        return {
          LoadBalancerArn: g.loadBalancerArn,
          Type: g.type,
          Scheme: 'internet-facing',
          State: { Code: 'active' },
        };
      }),
    });
  },
  DescribeTargetHealth: async (p, gs) => {
    const g = gs.byArn(p.get('TargetGroupArn'));
    return { TargetHealthDescriptions: await g.health(targetsOf(p), Date.now()) };
  },
  RegisterTargets: async (p, gs) => {
    await gs.byArn(p.get('TargetGroupArn')).register(targetsOf(p), Date.now());
    return {};
  },
  DeregisterTargets: async (p, gs) => {
    await gs.byArn(p.get('TargetGroupArn')).deregister(targetsOf(p), Date.now());
    return {};
  },
  ModifyTargetGroup: async (p, gs) => {
    const g = gs.byArn(p.get('TargetGroupArn'));
    await g.modifyGroup(p);
    return { TargetGroups: [g.describeGroup()] };
  },
  ModifyTargetGroupAttributes: (p, gs) => {
    const g = gs.byArn(p.get('TargetGroupArn'));
    g.modifyAttributes(members(p, 'Attributes'));
    return Promise.resolve({ Attributes: g.groupAttributes() });
  },
};

/**
 * An ELBv2-compatible endpoint for the lab, on the frontend's address: the
 * real SDK talks to it through its standard endpoint override, and it
 * answers from, and acts on, the lab's real HAProxy.
 */
export async function startElbv2Endpoint(
  layout: LabLayout,
  options: {
    deregistrationDelayS?: number;
    port?: number;
    /** the lab's group as a Network Load Balancer's (TCP, TCP checks, connection termination) */
    type?: GroupType;
  } = {},
): Promise<Elbv2Endpoint> {
  // at least the lab's max_request (5s), as the deregistration-delay invariant asks
  const deregistrationDelayS = options.deregistrationDelayS ?? 5;
  const files = labFiles(layout.workDir);
  const group = new LabTargetGroup(layout, files.haproxySocket, LAB_REGION, {
    deregistrationDelayS,
    now: Date.now(),
    ...(options.type !== undefined && { type: options.type }),
  });
  // with the pair: a second group (another ALB, as an internal one would be) backed by lb-b
  const groups = new Groups([
    group,
    ...(layout.pair
      ? [
          new LabTargetGroup(layout, files.haproxyB.socket, LAB_REGION, {
            deregistrationDelayS,
            now: Date.now(),
            second: { name: `${layout.service}-internal`, timings: layout.pair.timings },
          }),
        ]
      : []),
  ]);
  const faults = new Map<string, FaultKind[]>();
  const calls = new Map<string, number>();
  const metrics = new LabMetrics(labFiles(layout.workDir).haproxySocket, layout.backend);
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    // CloudWatch speaks JSON 1.0 on the same endpoint: its calls name themselves in a header
    const target = req.headers['x-amz-target'];
    req.on('end', () => {
      if (typeof target === 'string') {
        void answerCloudWatch(target, body).then(({ status, json, headers }) => {
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...headers });
          res.end(JSON.stringify(json));
        });
        return;
      }
      void answer(body).then(({ status, xml }) => {
        res.writeHead(status, { 'content-type': 'text/xml' });
        res.end(xml);
      });
    });
  });
  const answer = async (body: string): Promise<{ status: number; xml: string }> => {
    const params = parseForm(body);
    const action = params.get('Action') ?? '';
    calls.set(action, (calls.get(action) ?? 0) + 1);
    const fault = faults.get(action)?.shift();
    if (fault) {
      const f = faultFor(fault, action);
      return { status: f.status, xml: errorXml(f) };
    }
    const handler = handlers[action];
    if (!handler)
      return {
        status: 400,
        xml: errorXml({
          status: 400,
          code: 'InvalidAction',
          message: `${action} is not supported by the lab`,
          type: 'Sender',
        }),
      };
    try {
      return { status: 200, xml: resultXml(action, await handler(params, groups)) };
    } catch (error) {
      const e =
        error instanceof ApiError ? error : new ApiError('InternalFailure', String(error), 500);
      return {
        status: e.status,
        xml: errorXml({
          status: e.status,
          code: e.code,
          message: e.message,
          type: e.status >= 500 ? 'Receiver' : 'Sender',
        }),
      };
    }
  };
  const answerCloudWatch = async (
    target: string,
    body: string,
  ): Promise<{ status: number; json: unknown; headers: Record<string, string> }> => {
    const action = target.split('.').pop() ?? '';
    calls.set(action, (calls.get(action) ?? 0) + 1);
    const fault = faults.get(action)?.shift();
    if (fault) {
      const f = faultFor(fault, action);
      const code = f.code === 'AccessDenied' ? 'AccessDeniedException' : f.code;
      return {
        status: f.status,
        json: { __type: code, message: f.message.replace('elasticloadbalancing:', 'cloudwatch:') },
        headers: { 'x-amzn-query-error': `${f.code};${f.type}` },
      };
    }
    if (action !== 'GetMetricData')
      return {
        status: 400,
        json: { __type: 'InvalidAction', message: `${action} is not supported by the lab` },
        headers: {},
      };
    return { status: 200, json: await metrics.answer(body), headers: {} };
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? ELBV2_PORT, layout.frontend.address, resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    group,
    groups: groups.all,
    calls,
    inject: (action, kind, count) => {
      faults.set(action, [...(faults.get(action) ?? []), ...Array<FaultKind>(count).fill(kind)]);
    },
    close: async () => {
      metrics.close();
      for (const g of groups.all) g.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
