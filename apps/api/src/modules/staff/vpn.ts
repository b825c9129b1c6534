import {
  NODE_REPORT_INTERVAL_S,
  type StaffAddLocationBody,
  type StaffAddNodeBody,
  type StaffLocation,
  type StaffNode,
  nodeIsFull,
  nodePeerLimit,
} from '@warren/contract';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import type { VpnServices } from '../nodes/index.js';
import type { StaffActor, StaffAudit } from './audit.js';
import type { StaffRepository } from './repository.js';

export interface StaffVpnDeps {
  repo: Pick<StaffRepository, 'locationsWithNodes' | 'locationExists' | 'nodeLocation'>;
  audit: Pick<StaffAudit, 'record'>;
  /** The operator's node commands (the CLI's; they wake the long polls), the stealth cores' reports, the high-water mark. */
  vpn: {
    admin: Pick<
      VpnServices['admin'],
      'addLocation' | 'setLocation' | 'setLocationNodes' | 'addNode' | 'setNode' | 'issueNodeToken'
    >;
    stealthNodes: Pick<VpnServices['stealthNodes'], 'nodeGauges'>;
    highWaterPercent: VpnServices['highWaterPercent'];
  };
  now: () => Date;
}

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null | undefined) => (d === null || d === undefined ? null : iso(d));

/** The console's locations and nodes: the list with each node's state, and the operator's changes, each audited. */
export function staffVpn(deps: StaffVpnDeps) {
  const { repo, audit, vpn, now } = deps;

  type StealthStatus = Awaited<ReturnType<VpnServices['stealthNodes']['nodeGauges']>>[number];
  function nodeOf(
    r: Awaited<ReturnType<typeof repo.locationsWithNodes>>[number],
    st: StealthStatus | undefined,
  ): StaffNode {
    const lastSeen = r.last_seen_at ? new Date(r.last_seen_at) : null;
    return {
      name: r.node!,
      location: r.slug,
      endpointHost: r.endpoint_host ?? '',
      listenPort: r.listen_port ?? 0,
      enabled: !!r.enabled,
      demo: !!r.demo,
      hasToken: r.has_token,
      lastSeenAt: lastSeen?.toISOString() ?? null,
      online: !!lastSeen && now().getTime() - lastSeen.getTime() < 3 * NODE_REPORT_INTERVAL_S * 1000,
      activePeers: r.active_peers ?? 0,
      load: r.load,
      drainingSince: isoOrNull(r.draining_since),
      agentVersion: r.agent_version,
      lastApplyError: r.last_apply_error,
      wireguard: wireguardOf(r),
      stealth: st
        ? {
            up: st.up,
            version: st.version,
            users: Number(st.users),
            host: st.host,
            port: Number(st.port),
            certNotAfter:
              st.cert_not_after_s === null ? null : new Date(Number(st.cert_not_after_s) * 1000).toISOString(),
          }
        : null,
    };
  }

  /** The node's WireGuard capacity as reported, with the API's limit (the high-water mark) and whether it takes new devices. */
  function wireguardOf(r: {
    wg_kind: 'kernel' | 'userspace' | null;
    wg_max_peers: number | null;
    wg_peers: number | null;
    wg_refused: number | null;
  }): StaffNode['wireguard'] {
    if (!r.wg_kind || r.wg_max_peers === null) return null;
    const c = { maxPeers: r.wg_max_peers, peers: r.wg_peers ?? 0, refused: r.wg_refused ?? 0 };
    return {
      kind: r.wg_kind,
      ...c,
      limit: nodePeerLimit(c.maxPeers, vpn.highWaterPercent),
      full: nodeIsFull(c, vpn.highWaterPercent),
    };
  }

  async function locations(): Promise<StaffLocation[]> {
    const out = new Map<string, StaffLocation>();
    // The stealth cores as reported (the stealth module's table, read through its node side).
    const [rows, stealth] = await Promise.all([repo.locationsWithNodes(), vpn.stealthNodes.nodeGauges()]);
    const stealthOf = new Map(stealth.map((st) => [st.node, st]));
    for (const r of rows) {
      const l = out.get(r.slug) ?? {
        slug: r.slug,
        countryCode: r.country_code,
        country: r.country,
        city: r.city,
        premium: r.premium,
        visible: r.visible,
        enabled: false,
        nodes: [],
      };
      out.set(r.slug, l);
      if (r.node) {
        const node = nodeOf(r, stealthOf.get(r.node));
        l.nodes.push(node);
        l.enabled ||= node.enabled;
      }
    }
    return [...out.values()];
  }
  async function location(slug: string): Promise<StaffLocation> {
    const l = (await locations()).find((x) => x.slug === slug);
    if (!l) throw new NotFoundError('No such location.');
    return l;
  }
  async function node(name: string): Promise<StaffNode> {
    for (const l of await locations()) for (const n of l.nodes) if (n.name === name) return n;
    throw new NotFoundError('No such node.');
  }

  return {
    locations,
    async addLocation(actor: StaffActor, body: StaffAddLocationBody): Promise<StaffLocation> {
      const { visible, ...rest } = body;
      await vpn.admin.addLocation({ ...rest, dashVisible: visible ?? true });
      await audit.record(
        actor,
        'location-add',
        { text: body.slug },
        { countryCode: body.countryCode, city: body.city.en, premium: body.premium, visible: visible ?? true },
      );
      return location(body.slug);
    },
    async patchLocation(
      actor: StaffActor,
      slug: string,
      patch: { enabled?: boolean; premium?: boolean; visible?: boolean },
    ): Promise<StaffLocation> {
      if (!(await repo.locationExists(slug))) throw new NotFoundError('No such location.');
      if (patch.premium !== undefined || patch.visible !== undefined) {
        await vpn.admin.setLocation(slug, { premium: patch.premium, dashVisible: patch.visible });
      }
      if (patch.enabled !== undefined) {
        await vpn.admin.setLocationNodes(slug, patch.enabled);
      }
      await audit.record(actor, 'location-update', { text: slug }, patch);
      return location(slug);
    },
    async addNode(actor: StaffActor, body: StaffAddNodeBody): Promise<{ node: StaffNode; token: string }> {
      if (!(await repo.locationExists(body.location))) throw new ValidationError({ location: ['No such location.'] });
      const { token } = await vpn.admin.addNode(body);
      await audit.record(
        actor,
        'node-add',
        { text: body.name },
        { location: body.location, endpointHost: body.endpointHost, listenPort: body.listenPort ?? 51820 },
      );
      return { node: await node(body.name), token };
    },
    /** Switch a node on or off, or drain it (issue 22: given to no new customer, its customers told to move); one audit row per change asked. */
    async patchNode(
      actor: StaffActor,
      name: string,
      patch: { enabled?: boolean; draining?: boolean },
    ): Promise<StaffNode> {
      if (!(await repo.nodeLocation(name))) throw new NotFoundError('No such node.');
      await vpn.admin.setNode(name, patch);
      if (patch.draining !== undefined)
        await audit.record(actor, 'node-update', { text: name }, { draining: patch.draining });
      if (patch.enabled !== undefined)
        await audit.record(actor, 'node-update', { text: name }, { enabled: patch.enabled });
      return node(name);
    },
    async issueNodeToken(actor: StaffActor, name: string): Promise<{ node: StaffNode; token: string }> {
      if (!(await repo.nodeLocation(name))) throw new NotFoundError('No such node.');
      const token = await vpn.admin.issueNodeToken(name);
      // The token itself is never written: only that one was issued.
      await audit.record(actor, 'node-token', { text: name });
      return { node: await node(name), token };
    },
  };
}
export type StaffVpn = ReturnType<typeof staffVpn>;
