import net from 'node:net';
import type { CheckConfig } from '../../config/types.js';
import { errorCode, errorDetail, type CheckDeps, type CheckResult } from './result.js';

type TcpCheck = Extract<CheckConfig, { kind: 'tcp' }>;

/** The port accepts a connection within the timeout; nothing is sent. */
export async function tcpCheck(check: TcpCheck, deps: CheckDeps): Promise<CheckResult> {
  const started = deps.clock.now();
  const outcome = await new Promise<{ code: string; detail?: string }>((resolve) => {
    let settled = false;
    const finish = (code: string, detail?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(detail === undefined ? { code } : { code, detail });
    };
    // a socket deadline bounds I/O in real time, even under a test's fake clock
    const timer = setTimeout(
      () => finish('timeout', `no connection within ${check.timeout} ms`),
      check.timeout,
    );
    let socket: net.Socket;
    try {
      socket = net.connect({ host: check.host, port: check.port });
    } catch (error) {
      // a port out of range throws before any I/O
      clearTimeout(timer);
      resolve({ code: 'error', detail: errorDetail(error) });
      return;
    }
    socket.on('connect', () => finish('ok'));
    socket.on('error', (error) => finish(errorCode(error), errorDetail(error)));
    deps.signal?.addEventListener('abort', () => finish('aborted'), { once: true });
  });
  return {
    ok: outcome.code === 'ok',
    latency_ms: Math.max(0, deps.clock.now() - started),
    ...outcome,
  };
}
