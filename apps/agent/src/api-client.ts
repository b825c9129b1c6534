import http from 'node:http';
import https from 'node:https';
import {
  type DesiredState,
  NODE_PATHS,
  type NodeReport,
  desiredState,
  envelope,
  nodeReportResult,
} from '@warren/contract';
import { NodeToken } from './token.js';

/**
 * The agent's side of `/api/nodes/*`: plain node:http(s), so the API can also be reached through a
 * unix socket (`--api-socket`) when it runs on the same machine.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface ApiClientOptions {
  baseUrl: string;
  socketPath?: string;
  /** A fixed token, or the token file's (token.ts): re-read on a 401 and the call tried once more. */
  token: string | NodeToken;
  userAgent?: string;
  /** Told when a 401 made the agent take a new token from its file. */
  onNewToken?: () => void;
}

const desiredEnvelope = envelope(desiredState);
const reportEnvelope = envelope(nodeReportResult);

export class ApiClient {
  private readonly base: URL;
  private inflight = new Set<http.ClientRequest>();
  private readonly token: NodeToken;
  constructor(private readonly o: ApiClientOptions) {
    this.base = new URL(o.baseUrl);
    this.token = typeof o.token === 'string' ? new NodeToken(o.token) : o.token;
  }

  async desired(q: { since?: number; at?: number; wait?: number }): Promise<DesiredState> {
    const params = new URLSearchParams();
    if (q.since !== undefined) params.set('since', String(q.since));
    if (q.at !== undefined) params.set('at', String(q.at));
    if (q.wait) params.set('wait', String(q.wait));
    const qs = params.toString();
    const body = await this.request(
      'GET',
      `${NODE_PATHS.desired}${qs ? `?${qs}` : ''}`,
      undefined,
      ((q.wait ?? 0) + 15) * 1000,
    );
    const parsed = desiredEnvelope.safeParse(body);
    if (!parsed.success) throw new ApiError(`unexpected desired-state answer: ${parsed.error.issues[0]?.message}`);
    return parsed.data.data;
  }

  async report(r: NodeReport): Promise<number> {
    const body = await this.request('POST', NODE_PATHS.report, r, 30_000);
    const parsed = reportEnvelope.safeParse(body);
    if (!parsed.success) throw new ApiError('unexpected report answer');
    return parsed.data.data.accepted;
  }

  /** Aborts requests in flight (shutdown). */
  abort(): void {
    for (const req of this.inflight) req.destroy(new ApiError('aborted'));
  }

  /** A 401 with a token file that now holds another token (a new one issued): the call once more with it. */
  private async request(
    method: 'GET' | 'POST',
    pathAndQuery: string,
    payload: unknown,
    timeoutMs: number,
  ): Promise<unknown> {
    const used = this.token.value;
    try {
      return await this.send(method, pathAndQuery, payload, timeoutMs, used);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) throw err;
      // Another call may have taken the new token already (the long poll and a report refused at once).
      if (this.token.value === used) {
        if (!this.token.reload()) throw err;
        this.o.onNewToken?.();
      }
      return this.send(method, pathAndQuery, payload, timeoutMs, this.token.value);
    }
  }

  private send(
    method: 'GET' | 'POST',
    pathAndQuery: string,
    payload: unknown,
    timeoutMs: number,
    token: string,
  ): Promise<unknown> {
    const url = new URL(
      pathAndQuery.replace(/^\//, ''),
      this.base.href.endsWith('/') ? this.base : `${this.base.href}/`,
    );
    const data = payload === undefined ? undefined : Buffer.from(JSON.stringify(payload));
    const lib = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.request(
        url,
        {
          method,
          socketPath: this.o.socketPath,
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/json',
            'user-agent': this.o.userAgent ?? 'warren-agent',
            ...(data ? { 'content-type': 'application/json', 'content-length': String(data.length) } : {}),
          },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              let message = text.slice(0, 200);
              try {
                message = (JSON.parse(text) as { message?: string }).message ?? message;
              } catch {
                /* not JSON */
              }
              reject(new ApiError(`${method} ${url.pathname}: ${status} ${message}`, status));
              return;
            }
            try {
              resolve(JSON.parse(text));
            } catch {
              reject(new ApiError(`${method} ${url.pathname}: answer is not JSON`, status));
            }
          });
          res.on('error', reject);
        },
      );
      this.inflight.add(req);
      req.on('close', () => this.inflight.delete(req));
      req.on('timeout', () => req.destroy(new ApiError(`${method} ${url.pathname}: timed out after ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(data);
    });
  }
}
