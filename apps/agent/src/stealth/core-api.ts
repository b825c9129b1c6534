import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';

/**
 * The stealth core's gRPC API (V2Ray 4.x: HandlerService and StatsService on loopback), with the
 * few messages the agent needs written out from v2ray-core's .proto files (package names of the
 * v4 line, `v2ray.core.*`). grpc-js carries the calls; protobufjs encodes and decodes them. Users
 * are added and removed on the running core (no restart, other customers untouched).
 */
const PROTO = `
syntax = "proto3";
package v2ray.core.common.serial;
message TypedMessage { string type = 1; bytes value = 2; }
`;
const MORE = [
  `syntax = "proto3"; package v2ray.core.common.protocol;
   message User { uint32 level = 1; string email = 2; v2ray.core.common.serial.TypedMessage account = 3; }`,
  `syntax = "proto3"; package v2ray.core.proxy.vless;
   message Account { string id = 1; string flow = 2; string encryption = 3; }`,
  `syntax = "proto3"; package v2ray.core.proxy.trojan;
   message Account { string password = 1; string flow = 2; }`,
  `syntax = "proto3"; package v2ray.core.app.proxyman.command;
   message AddUserOperation { v2ray.core.common.protocol.User user = 1; }
   message RemoveUserOperation { string email = 1; }
   message AlterInboundRequest { string tag = 1; v2ray.core.common.serial.TypedMessage operation = 2; }
   message AlterInboundResponse {}`,
  `syntax = "proto3"; package v2ray.core.app.stats.command;
   message QueryStatsRequest { string pattern = 1; bool reset = 2; }
   message Stat { string name = 1; int64 value = 2; }
   message QueryStatsResponse { repeated Stat stat = 1; }
   message SysStatsRequest {}
   message SysStatsResponse { uint32 NumGoroutine = 1; uint32 NumGC = 2; uint64 Alloc = 3; uint64 TotalAlloc = 4; uint64 Sys = 5;
     uint64 Mallocs = 6; uint64 Frees = 7; uint64 LiveObjects = 8; uint64 PauseTotalNs = 9; uint32 Uptime = 10; }`,
];

const root = protobuf.parse(PROTO).root;
for (const p of MORE) protobuf.parse(p, root);
root.resolveAll();
const type = (name: string) => root.lookupType(name);

const T = {
  vlessAccount: 'v2ray.core.proxy.vless.Account',
  trojanAccount: 'v2ray.core.proxy.trojan.Account',
  add: 'v2ray.core.app.proxyman.command.AddUserOperation',
  remove: 'v2ray.core.app.proxyman.command.RemoveUserOperation',
  alterReq: 'v2ray.core.app.proxyman.command.AlterInboundRequest',
  alterRes: 'v2ray.core.app.proxyman.command.AlterInboundResponse',
  queryReq: 'v2ray.core.app.stats.command.QueryStatsRequest',
  queryRes: 'v2ray.core.app.stats.command.QueryStatsResponse',
  sysReq: 'v2ray.core.app.stats.command.SysStatsRequest',
  sysRes: 'v2ray.core.app.stats.command.SysStatsResponse',
} as const;

/** A message as a TypedMessage (V2Ray's "Any"): its full name and its encoding. */
export function typed(name: string, value: Record<string, unknown>): { type: string; value: Uint8Array } {
  const t = type(name);
  return { type: name, value: t.encode(t.create(value)).finish() };
}

export function encode(name: string, value: Record<string, unknown>): Buffer {
  const t = type(name);
  const err = t.verify(value);
  if (err) throw new Error(`${name}: ${err}`);
  return Buffer.from(t.encode(t.create(value)).finish());
}

export function decode<R>(name: string, buf: Buffer): R {
  const t = type(name);
  return t.toObject(t.decode(buf), { longs: Number, defaults: true }) as R;
}

/** The AlterInbound request that adds a user (VLESS: its UUID; Trojan: its password). */
export function addUserRequest(tag: string, email: string, account: { vless: string } | { trojan: string }): Buffer {
  const acc =
    'vless' in account
      ? typed(T.vlessAccount, { id: account.vless, encryption: 'none' })
      : typed(T.trojanAccount, { password: account.trojan });
  return encode(T.alterReq, { tag, operation: typed(T.add, { user: { level: 0, email, account: acc } }) });
}

export function removeUserRequest(tag: string, email: string): Buffer {
  return encode(T.alterReq, { tag, operation: typed(T.remove, { email }) });
}

/** Per-user counters by email: `user>>>u42>>>traffic>>>uplink` → { u42: { up, down } }. */
export function parseUserStats(stats: { name: string; value: number }[]): Map<string, { up: number; down: number }> {
  const out = new Map<string, { up: number; down: number }>();
  for (const s of stats) {
    const m = /^user>>>(.+)>>>traffic>>>(uplink|downlink)$/.exec(s.name);
    if (!m) continue;
    const e = out.get(m[1]!) ?? { up: 0, down: 0 };
    if (m[2] === 'uplink') e.up += s.value;
    else e.down += s.value;
    out.set(m[1]!, e);
  }
  return out;
}

/** The core's answer when a user exists already / does not exist: a state the caller wanted anyway. */
export const isAlreadyExists = (err: unknown) => /already exists/i.test(String((err as Error)?.message ?? err));
export const isNotFound = (err: unknown) => /not found/i.test(String((err as Error)?.message ?? err));

export interface CoreApi {
  addUser(tag: string, email: string, account: { vless: string } | { trojan: string }): Promise<void>;
  removeUser(tag: string, email: string): Promise<void>;
  /** Per-user bytes since the last reset, and reset them: every user's, or one email's. */
  takeUserStats(email?: string): Promise<Map<string, { up: number; down: number }>>;
  /** Seconds the core has been running (a smaller value than last time: it restarted and lost its users). */
  uptime(): Promise<number>;
  close(): void;
}

const identity = (b: Buffer) => b;

/** The real client, on the core's loopback API port. */
export class GrpcCoreApi implements CoreApi {
  private readonly client: grpc.Client;

  constructor(
    address: string,
    private readonly timeoutMs = 3000,
  ) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure());
  }

  private call(path: string, body: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(
        path,
        identity,
        identity,
        body,
        new grpc.Metadata(),
        { deadline: Date.now() + this.timeoutMs },
        (err, res) => {
          if (err) reject(new Error(err.details || err.message));
          else resolve(res ?? Buffer.alloc(0));
        },
      );
    });
  }

  async addUser(tag: string, email: string, account: { vless: string } | { trojan: string }): Promise<void> {
    await this.call(
      '/v2ray.core.app.proxyman.command.HandlerService/AlterInbound',
      addUserRequest(tag, email, account),
    );
  }

  async removeUser(tag: string, email: string): Promise<void> {
    await this.call('/v2ray.core.app.proxyman.command.HandlerService/AlterInbound', removeUserRequest(tag, email));
  }

  async takeUserStats(email?: string): Promise<Map<string, { up: number; down: number }>> {
    // V2Ray 4 matches the pattern as a substring; the trailing >>> keeps u4.… from matching u42.….
    const pattern = email === undefined ? 'user>>>' : `user>>>${email}>>>`;
    const res = await this.call(
      '/v2ray.core.app.stats.command.StatsService/QueryStats',
      encode(T.queryReq, { pattern, reset: true }),
    );
    return parseUserStats(decode<{ stat: { name: string; value: number }[] }>(T.queryRes, res).stat);
  }

  async uptime(): Promise<number> {
    const res = await this.call('/v2ray.core.app.stats.command.StatsService/GetSysStats', encode(T.sysReq, {}));
    return decode<{ Uptime: number }>(T.sysRes, res).Uptime;
  }

  close(): void {
    this.client.close();
  }
}
