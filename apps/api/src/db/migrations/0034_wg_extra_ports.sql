-- The extra public UDP ports a node's WireGuard is reached on besides listen_port (issue 23,
-- `warren-agent setup --wg-extra-ports`, default 53 and 443): as its agent last reported them, only
-- those whose nftables redirect was in place. null: never reported (older agents, demo nodes),
-- offered as none. A location offers a port only when every node a config may name accepts it.
alter table vpn_nodes add column wg_extra_ports integer[]
  check (wg_extra_ports is null or (cardinality(wg_extra_ports) <= 8 and 1 <= all(wg_extra_ports) and 65535 >= all(wg_extra_ports)));
