-- A node can be drained (issue 22): from draining_since on it is given to no new customer (the
-- configurations handed out name another node of its location) and its customers are told to take
-- a new configuration; it keeps every peer, so whoever is still on it stays connected until the
-- operator switches it off.
alter table vpn_nodes add column draining_since timestamptz;
