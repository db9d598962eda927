import http from 'node:http';
import https from 'node:https';
import { BlockedError, UsageError, messageOf } from '../../../errors.js';
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

/**
 * etcd was reached and refused us for what deploy.yml's `lease.tls` says
 * (a certificate, a CA): every endpoint refusing so is bad config, exit 2.
 */
class TlsRefusal extends Error {}

// node's codes for a server certificate the CA given (or the system's) does not verify
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);
const EXPIRED = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);
// the TLS alert etcd sends a client without a certificate its --trusted-ca-file signed
const CLIENT_REFUSED = /alert (bad certificate|certificate required|unknown ca)/;
// etcd (≥ 3.2.26, 3.3.12, 3.4) with --client-cert-auth and auth enabled, to a gateway client
const GATEWAY_CN = /^CommonName of client sending a request against gateway/;

/** node's TLS failure in the words of deploy.yml's lease.tls; anything else as it is */
function tlsRefusal(error: unknown, options: EtcdOptions, plainFirstTry: boolean): Error {
  const code = (error as { code?: unknown }).code;
  const message = messageOf(error);
  // an etcd serving TLS closes a plain request's connection without a word (node: "socket
  // hang up"); on a reused keep-alive socket the same error is only an idle close
  if (plainFirstTry && code === 'ECONNRESET')
    return new TlsRefusal(
      'closed the connection on a plain http:// request without answering, as an etcd serving TLS does: write https:// in lease.endpoints',
    );
  if (typeof code === 'string' && UNTRUSTED.has(code))
    return new TlsRefusal(
      options.ca === undefined
        ? `etcd's certificate is not signed by a CA this machine trusts: name its CA in lease.tls.ca (${code})`
        : `etcd's certificate is not signed by the CA in lease.tls.ca (${code})`,
    );
  if (typeof code === 'string' && EXPIRED.has(code))
    return new TlsRefusal(`etcd's certificate is out of its validity dates (${code})`);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return new TlsRefusal(`etcd's certificate: ${message}`);
  if (CLIENT_REFUSED.test(message))
    return new TlsRefusal(
      options.cert === undefined
        ? 'etcd asks for a client certificate (--client-cert-auth): set lease.tls.cert and lease.tls.key'
        : "etcd refused the client certificate in lease.tls.cert: not signed by a CA in etcd's --trusted-ca-file",
    );
  return error instanceof Error ? error : new Error(message);
}

// gRPC status codes the gateway returns beside its message
const UNAVAILABLE = 14;
const PERMISSION_DENIED = 7;
const AUTH_FAILED = /authentication failed|user name is empty/;

/** etcd refusing the user deploy.yml names (or none): bad config, exit 2, never a bug */
function refusedAuth(error: unknown): unknown {
  if (!(error instanceof EtcdError)) return error;
  if (AUTH_FAILED.test(error.message))
    return new UsageError(
      `${error.message}: etcd auth is on; check lease.username and the password in its variable (lease.password_env)`,
    );
  if (error.code === PERMISSION_DENIED)
    return new UsageError(
      `${error.message}: etcd auth is on; lease.username needs a user whose role reads and writes the keys under lease.prefix`,
    );
  return error;
}
const INVALID_TOKEN = /invalid auth token|user name is empty/;

export class EtcdGateway {
  private current = 0;
  private token: Promise<string> | undefined;
  // one per scheme: endpoints may mix http:// and https://
  private readonly plain = new http.Agent({ keepAlive: true });
  private readonly secure: https.Agent;

  constructor(private readonly options: EtcdOptions) {
    const { ca, cert, key } = options;
    this.secure = new https.Agent({ keepAlive: true, ca, cert, key });
  }

  /** One call, e.g. `call('kv/range', { key })`; exit 3 when no endpoint answers. */
  async call<T>(path: string, body: object): Promise<T> {
    try {
      return await this.authenticated<T>(path, body);
    } catch (error) {
      throw refusedAuth(error);
    }
  }

  private async authenticated<T>(path: string, body: object): Promise<T> {
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
    this.plain.destroy();
    this.secure.destroy();
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
    let refusals = 0;
    for (let i = 0; i < endpoints.length; i++) {
      const at = (this.current + i) % endpoints.length;
      const endpoint = endpoints[at] as string;
      try {
        const answer = await this.post<T>(endpoint, path, body, headers);
        this.current = at;
        return answer;
      } catch (error) {
        if (error instanceof EtcdError && error.code !== UNAVAILABLE) throw error;
        if (error instanceof TlsRefusal) refusals++;
        reasons.push(`${endpoint}: ${messageOf(error)}`);
      }
    }
    // every endpoint refused what lease.tls gives: fixed in deploy.yml, not by waiting
    if (refusals === endpoints.length) throw new UsageError(`etcd: ${reasons.join('; ')}`);
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
    const secure = url.protocol === 'https:';
    const send = secure ? https.request : http.request;
    return new Promise<T>((resolve, reject) => {
      const request = send(
        url,
        {
          method: 'POST',
          agent: secure ? this.secure : this.plain,
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
      request.on('error', (error) =>
        reject(tlsRefusal(error, this.options, !secure && !request.reusedSocket)),
      );
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
    if (GATEWAY_CN.test(first))
      throw new TlsRefusal(
        'etcd refuses a client certificate with a CommonName on its JSON gateway while etcd auth is on: use a certificate whose subject has no CN, and lease.username',
      );
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
