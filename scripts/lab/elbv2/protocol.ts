import { randomUUID } from 'node:crypto';

/**
 * The ELBv2 Query protocol as the AWS SDK speaks it: a form-encoded POST with
 * `Action` and flattened members (`Targets.member.1.Id`), answered in XML.
 */

export const XMLNS = 'http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/';

export type Params = ReadonlyMap<string, string>;

export function parseForm(body: string): Params {
  return new Map(new URLSearchParams(body));
}

/** `Targets.member.N.<field>` → one record per N, in order. */
export function members(params: Params, list: string): Record<string, string>[] {
  const out = new Map<number, Record<string, string>>();
  const prefix = `${list}.member.`;
  for (const [key, value] of params) {
    if (!key.startsWith(prefix)) continue;
    const [index, ...field] = key.slice(prefix.length).split('.');
    const n = Number(index);
    const record = out.get(n) ?? {};
    record[field.join('.')] = value;
    out.set(n, record);
  }
  return [...out.entries()].sort(([a], [b]) => a - b).map(([, r]) => r);
}

export function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A value tree: strings and numbers are leaves, arrays become `<member>` lists. */
export type XmlValue = string | number | boolean | readonly XmlValue[] | { [k: string]: XmlValue };

export function toXml(value: XmlValue): string {
  if (Array.isArray(value))
    return value.map((v) => `<member>${toXml(v as XmlValue)}</member>`).join('');
  if (typeof value === 'object')
    return Object.entries(value as Record<string, XmlValue>)
      .map(([k, v]) => `<${k}>${toXml(v)}</${k}>`)
      .join('');
  return escapeXml(String(value));
}

export function resultXml(action: string, result: Record<string, XmlValue>): string {
  return `<?xml version="1.0" encoding="UTF-8"?><${action}Response xmlns="${XMLNS}"><${action}Result>${toXml(result)}</${action}Result><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${action}Response>`;
}

export interface AwsFault {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly type: 'Sender' | 'Receiver';
}

export function errorXml(fault: AwsFault): string {
  return `<?xml version="1.0" encoding="UTF-8"?><ErrorResponse xmlns="${XMLNS}"><Error><Type>${fault.type}</Type><Code>${escapeXml(fault.code)}</Code><Message>${escapeXml(fault.message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`;
}

/** What the endpoint can be told to answer instead, per action, for a number of calls. */
export type FaultKind = 'throttle' | 'server-error' | 'access-denied';

export function faultFor(kind: FaultKind, action: string): AwsFault {
  switch (kind) {
    case 'throttle':
      return { status: 400, code: 'Throttling', message: 'Rate exceeded', type: 'Sender' };
    case 'server-error':
      return {
        status: 503,
        code: 'ServiceUnavailable',
        message: 'Service is unavailable',
        type: 'Receiver',
      };
    case 'access-denied':
      return {
        status: 403,
        code: 'AccessDenied',
        message: `User: arn:aws:iam::000000000000:user/lab is not authorized to perform: elasticloadbalancing:${action} because no identity-based policy allows the elasticloadbalancing:${action} action`,
        type: 'Sender',
      };
  }
}
