-- The change-log version each node has applied (issue 15): an agent's long poll names the version
-- it applied (`since`), so the API knows when a change has reached every reporting node, and new
-- OpenVPN/SOCKS5 credentials are shown only once the nodes have them (bounded wait).
alter table vpn_nodes add column synced_version bigint;
