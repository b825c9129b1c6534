-- VPN control plane: locations, nodes, WireGuard devices, per-node counters and the change log
-- agents long-poll on. Procedural bodies stay on one line (migrate.ts splits at line-final semicolons).

create table vpn_locations (
  id serial primary key,
  slug text not null unique check (slug ~ '^[a-z0-9-]{2,40}$'),
  country_code text not null check (country_code ~ '^[A-Z]{2}$'),
  country_en text not null,
  country_ru text not null,
  country_zh text not null,
  city_en text not null,
  city_ru text not null,
  city_zh text not null,
  latitude double precision not null,
  longitude double precision not null,
  premium boolean not null default true,
  dash_visible boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table vpn_nodes (
  id serial primary key,
  location_id integer not null references vpn_locations(id) on delete cascade,
  name text not null unique check (name ~ '^[a-z0-9-]{2,60}$'),
  -- sha256 of the node token; null until an operator issues one (seeded nodes).
  token_hash text unique,
  endpoint_host text not null,
  listen_port integer not null default 51820,
  -- The interface's public key: set by the operator or reported by the agent.
  public_key text,
  enabled boolean not null default true,
  load integer,
  active_peers integer not null default 0,
  last_seen_at timestamptz,
  created_at timestamptz not null default now()
);
create index vpn_nodes_location on vpn_nodes (location_id);

create table wg_devices (
  id serial primary key,
  user_id integer not null references users(id) on delete cascade,
  name text not null,
  public_key text not null,
  -- Offset in the address pools: IPv4 and IPv6 are both derived from it, so one unique index guards both.
  addr_index integer not null check (addr_index > 0),
  created_at timestamptz not null default now()
);
create unique index wg_devices_public_key on wg_devices (public_key);
create unique index wg_devices_addr_index on wg_devices (addr_index);
create index wg_devices_user on wg_devices (user_id);

-- Counters as the node last reported them (no client IPs, no destinations).
create table wg_peer_stats (
  device_id integer not null references wg_devices(id) on delete cascade,
  node_id integer not null references vpn_nodes(id) on delete cascade,
  last_handshake_at timestamptz,
  rx_bytes bigint not null default 0,
  tx_bytes bigint not null default 0,
  updated_at timestamptz not null default now(),
  primary key (device_id, node_id)
);

-- Every change that may alter some node's peers. seq is the version agents hold; user_id null means
-- "anything may have changed" (locations, nodes) and makes agents fetch the full state.
create table vpn_changes (
  seq bigserial primary key,
  user_id integer,
  created_at timestamptz not null default now()
);
create table vpn_meta (
  id integer primary key check (id = 1),
  pruned_through bigint not null default 0
);
insert into vpn_meta (id) values (1);

create index users_subscription_expiry on users (subscription_expires_at) where subscription_expires_at is not null;

-- Writers take one advisory lock before numbering a change, so sequence order is commit order and an
-- agent that read version N never misses a change numbered below N that committed later.
create function vpn_note_change(uid integer) returns void language plpgsql as $$ begin perform pg_advisory_xact_lock(727003); insert into vpn_changes (user_id) values (uid); end $$;

create function vpn_user_changed() returns trigger language plpgsql as $$ begin perform vpn_note_change(new.id); return null; end $$;
create trigger users_vpn_changed after update of tariff_key, subscription_expires_at, account_status, deleted_at on users
  for each row when (old.tariff_key is distinct from new.tariff_key or old.subscription_expires_at is distinct from new.subscription_expires_at
    or old.account_status is distinct from new.account_status or old.deleted_at is distinct from new.deleted_at)
  execute function vpn_user_changed();

create function vpn_device_changed() returns trigger language plpgsql as $$ begin if tg_op = 'DELETE' then perform vpn_note_change(old.user_id); else perform vpn_note_change(new.user_id); end if; return null; end $$;
create trigger wg_devices_vpn_changed after insert or delete or update of public_key, addr_index, user_id on wg_devices
  for each row execute function vpn_device_changed();

create function vpn_everything_changed() returns trigger language plpgsql as $$ begin perform vpn_note_change(null); return null; end $$;
create trigger vpn_locations_changed after update of premium on vpn_locations for each statement execute function vpn_everything_changed();
create trigger vpn_nodes_changed after update of location_id, enabled on vpn_nodes for each statement execute function vpn_everything_changed();
