-- The key stealth credentials are derived under (modules/stealth/key.ts): one row, sealed with the
-- key ring like every other secret at rest, so rotating APP_SECRET re-seals it (npx warren secrets
-- reseal) instead of changing every customer's VLESS/Trojan credentials and subscription URL.
create table stealth_key (
  id integer primary key check (id = 1),
  key_enc text not null,
  created_at timestamptz not null default now()
);
