-- Stealth protocols (issue 21): VLESS over WebSocket + TLS and Trojan over TLS on every node.
-- Procedural bodies stay on one line (migrate.ts splits at line-final semicolons).

-- One row per account that asked for stealth. The VLESS id, the Trojan password and the
-- subscription URL's secret are HMAC-SHA256 of (user, seed) under a key derived from APP_SECRET
-- (modules/stealth/credentials.ts): the account can be shown them again, but a read of this table
-- alone yields none of them. A reset draws a new seed: all three change at once.
create table stealth_credentials (
  user_id integer primary key references users(id) on delete cascade,
  seed text not null check (seed ~ '^[A-Za-z0-9_-]{43}$'),
  -- sha256 of the subscription secret: how /api/sub/<secret> finds the account (index, no scan).
  sub_hash text not null unique,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- The credentials are part of every node's desired state: a new, rotated or deleted row is a change
-- for that account, so the long polls wake and the nodes drop the old user within seconds.
create function stealth_credentials_changed() returns trigger language plpgsql as $$ begin if tg_op = 'DELETE' then perform vpn_note_change(old.user_id); else perform vpn_note_change(new.user_id); end if; return null; end $$;
create trigger stealth_credentials_vpn_changed after insert or delete or update of seed on stealth_credentials
  for each row execute function stealth_credentials_changed();

-- What each node last reported of its stealth core: host, port and WebSocket path make the links;
-- up, version, users and certificate expiry are for the console and metrics. No row: the node
-- never reported stealth (or stopped), and no link points at it.
create table stealth_node_status (
  node_id integer primary key references vpn_nodes(id) on delete cascade,
  host text not null,
  port integer not null check (port between 1 and 65535),
  ws_path text not null,
  up boolean not null,
  version text,
  users integer not null default 0,
  cert_not_after timestamptz,
  updated_at timestamptz not null default now()
);

-- Per-account bytes through each node's core, summed from the reports (bytes only: no addresses,
-- no destinations), like wg_peer_stats for WireGuard devices.
create table stealth_traffic (
  user_id integer not null references users(id) on delete cascade,
  node_id integer not null references vpn_nodes(id) on delete cascade,
  rx_bytes bigint not null default 0,
  tx_bytes bigint not null default 0,
  updated_at timestamptz not null default now(),
  primary key (user_id, node_id)
);
create index stealth_traffic_node on stealth_traffic (node_id);
