import http from 'node:http';
import https from 'node:https';
import { BlockedError, messageOf } from '../../../errors.js';
import { excerpt } from '../../../safe-text.js';

/**
 * etcd's v3 API through its JSON gateway (`POST /v3/<service>/<call>`, the
 * gRPC messages as JSON: bytes in base64, int64 as strings), over node:http
 * and node:https. Not the `etcd3` package: it brings gRPC (@grpc/grpc-js,
 * protobufjs) into every command for the four calls a lease needs, where the
 * gateway that every etcd ≥ 3.4 serves on its client port needs nothing.
 * Endpoints are tried in order, starting with the last one that answered.
 */

export interface EtcdOptions {
  readonly endpoints: readonly string[];
  /** PEM text, read from the files deploy.yml names */
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly username?: string;
  readonly password?: string;
  /** per endpoint and call */
  readonly timeoutMs?: number;
}

/** etcd answered, and said no: its gRPC status code and message. */
export class EtcdError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(`etcd: ${message}`);
  }
}

// gRPC status codes the gateway returns beside its message
const UNAVAILABLE = 14;
const INVALID_TOKEN = /invalid auth token|user name is empty/;

export class EtcdGateway {
  private current = 0;
  private token: Promise<string> | undefined;
  private readonly agent: https.Agent | http.Agent;

  constructor(private readonly options: EtcdOptions) {
    const tls = { ca: options.ca, cert: options.cert, key: options.key };
    this.agent = options.endpoints.some((e) => e.startsWith('https:'))
      ? new https.Agent({ keepAlive: true, ...tls })
      : new http.Agent({ keepAlive: true });
  }

  /** One call, e.g. `call('kv/range', { key })`; exit 3 when no endpoint answers. */
  async call<T>(path: string, body: object): Promise<T> {
    const headers = await this.authHeaders();
    try {
      return await this.anyEndpoint<T>(path, body, headers);
    } catch (error) {
      // a token expires (etcd's --auth-token-ttl): authenticate again, once
      if (!(error instanceof EtcdError && INVALID_TOKEN.test(error.message))) throw error;
      this.token = undefined;
      return this.anyEndpoint<T>(path, body, await this.authHeaders());
    }
  }

  /** Keep-alive sockets closed, so the command exits at once. */
  close(): void {
    this.agent.destroy();
  }

  private async authHeaders(): Promise<Record<string, string>> {
    const { username, password } = this.options;
    if (username === undefined) return {};
    this.token ??= this.anyEndpoint<{ token: string }>(
      'auth/authenticate',
      { name: username, password: password ?? '' },
      {},
    ).then((a) => a.token);
    this.token.catch(() => (this.token = undefined));
    return { authorization: await this.token };
  }

  private async anyEndpoint<T>(
    path: string,
    body: object,
    headers: Record<string, string>,
  ): Promise<T> {
    const { endpoints } = this.options;
    const reasons: string[] = [];
    for (let i = 0; i < endpoints.length; i++) {
      const at = (this.current + i) % endpoints.length;
      const endpoint = endpoints[at] as string;
      try {
        const answer = await this.post<T>(endpoint, path, body, headers);
        this.current = at;
        return answer;
      } catch (error) {
        if (error instanceof EtcdError && error.code !== UNAVAILABLE) throw error;
        reasons.push(`${endpoint}: ${messageOf(error)}`);
      }
    }
    throw new BlockedError(`etcd: no endpoint answered (${reasons.join('; ')})`);
  }

  private post<T>(
    endpoint: string,
    path: string,
    body: object,
    headers: Record<string, string>,
  ): Promise<T> {
    const url = new URL(`/v3/${path}`, endpoint);
    const data = JSON.stringify(body);
    const send = url.protocol === 'https:' ? https.request : http.request;
    return new Promise<T>((resolve, reject) => {
      const request = send(
        url,
        {
          method: 'POST',
          agent: this.agent,
          timeout: this.options.timeoutMs ?? 2_000,
          headers: { 'content-type': 'application/json', ...headers },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (c: Buffer) => chunks.push(c));
          response.on('error', reject);
          response.on('end', () => {
            try {
              resolve(answerOf<T>(response.statusCode ?? 0, Buffer.concat(chunks).toString()));
            } catch (error) {
              reject(error instanceof Error ? error : new Error(String(error)));
            }
          });
        },
      );
      request.on('timeout', () => request.destroy(new Error('timed out')));
      request.on('error', reject);
      request.end(data);
    });
  }
}

interface GatewayError {
  readonly error?: string;
  readonly message?: string;
  readonly code?: number;
}

/** The answer's JSON; an error body (any status) as an EtcdError; a stream's first message. */
function answerOf<T>(status: number, text: string): T {
  // a streaming call (lease/keepalive) answers {"result": …} per message, one per line
  const first = text.split('\n').find((l) => l.trim() !== '') ?? '{}';
  let value: unknown;
  try {
    value = JSON.parse(first);
  } catch {
    throw new Error(`HTTP ${status}: not etcd's gateway (${excerpt(first, 80)})`);
  }
  const v = value as GatewayError & { result?: T; error?: GatewayError | string };
  if (typeof v.error === 'object') throw errorOf(v.error);
  if (typeof v.code === 'number' && v.code !== 0) throw errorOf(v);
  if (status !== 200) throw new Error(`HTTP ${status}`);
  if (v.result !== undefined) return v.result;
  return value as T;
}

function errorOf(e: GatewayError): EtcdError {
  return new EtcdError(e.code ?? 2, e.message ?? e.error ?? 'unknown error');
}

export const b64 = (text: string): string => Buffer.from(text).toString('base64');
export const unb64 = (text: string | undefined): string =>
  Buffer.from(text ?? '', 'base64').toString();
