-- OpenVPN, SOCKS5 and the ad blocker on the nodes: the control plane's PKI, per-node server
-- certificates, per-account service credentials and the ports each node serves them on.
-- Procedural bodies stay on one line (migrate.ts splits at line-final semicolons).

-- The one CA (made on first start). Private parts are AES-256-GCM under OPENVPN_CA_SECRET (or APP_SECRET).
create table openvpn_pki (
  id integer primary key check (id = 1),
  ca_cert text not null,
  ca_key_enc text not null,
  tls_crypt_enc text not null,
  created_at timestamptz not null default now()
);

-- A server certificate per node, issued when the node first asks for it; its key goes to that node only.
create table openvpn_node_certs (
  node_id integer primary key references vpn_nodes(id) on delete cascade,
  cert text not null,
  key_enc text not null,
  not_after timestamptz not null,
  created_at timestamptz not null default now()
);

-- One username/password per account for OpenVPN and SOCKS5. The password is kept encrypted so its
-- owner can see it again; nodes get only the scrypt verifier.
create table service_credentials (
  user_id integer primary key references users(id) on delete cascade,
  username text not null unique check (username ~ '^[a-z0-9]{6,32}$'),
  password_enc text not null,
  verifier text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

alter table vpn_nodes add column openvpn_udp_port integer not null default 1194 check (openvpn_udp_port between 1 and 65535);
alter table vpn_nodes add column openvpn_tcp_port integer not null default 443 check (openvpn_tcp_port between 1 and 65535);
alter table vpn_nodes add column socks_port integer not null default 1080 check (socks_port between 1 and 65535);

-- Credentials are part of every node's desired state: a new or reset one is a change for that account.
create function service_credentials_changed() returns trigger language plpgsql as $$ begin if tg_op = 'DELETE' then perform vpn_note_change(old.user_id); else perform vpn_note_change(new.user_id); end if; return null; end $$;
create trigger service_credentials_vpn_changed after insert or delete or update of username, verifier on service_credentials
  for each row execute function service_credentials_changed();
-- Agents read ports with the full state.
create trigger vpn_nodes_service_ports_changed after update of openvpn_udp_port, openvpn_tcp_port, socks_port, endpoint_host on vpn_nodes
  for each statement execute function vpn_everything_changed();
