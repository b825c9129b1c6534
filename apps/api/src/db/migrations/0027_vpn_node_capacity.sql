-- A node's WireGuard capacity as its agent reports it (issue 22): the implementation (kernel or
-- userspace, i.e. wireguard-go), the peers one interface holds at most (wireguard-go 65,536, the
-- kernel 1,048,576, or the operator's lower --max-peers), the peers on the interface and the
-- desired peers it refused for want of room. null until an agent that knows says so. A node at
-- VPN_NODE_HIGH_WATER_PERCENT of its cap (or refusing peers) is named in no new configuration.
alter table vpn_nodes add column wg_kind text check (wg_kind in ('kernel', 'userspace'));
alter table vpn_nodes add column wg_max_peers integer check (wg_max_peers > 0);
alter table vpn_nodes add column wg_peers integer check (wg_peers >= 0);
alter table vpn_nodes add column wg_refused integer check (wg_refused >= 0);
