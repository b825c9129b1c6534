-- VPN features a user can switch (the ad blocker first); premium ones need a paid plan.
create table features (
  id integer primary key,
  key text not null unique,
  name text not null,
  premium boolean not null default true,
  sort integer not null default 0
);
insert into features (id, key, name, premium, sort) values (1, 'adblock', 'Ad Blocker', true, 0) on conflict do nothing;

create table user_features (
  user_id integer not null references users(id) on delete cascade,
  feature_id integer not null references features(id),
  enabled boolean not null,
  updated_at timestamptz not null default now(),
  primary key (user_id, feature_id)
);
-- Nodes apply feature state (ad-blocking DNS), so a switch is a VPN change for that user.
create function user_feature_changed() returns trigger language plpgsql as $$ begin perform vpn_note_change(new.user_id); return null; end $$;
create trigger user_features_vpn_changed after insert or update of enabled on user_features for each row execute function user_feature_changed();

-- Referral code for the affiliate link (?referralID=) and friend code for rewards (?friendID=).
alter table users add column referral_code text;
alter table users add column friend_code text;
create unique index users_referral_code on users (referral_code) where referral_code is not null;
create unique index users_friend_code on users (friend_code) where friend_code is not null;

-- Free days earned by inviting friends, as a ledger.
create table reward_entries (
  id bigserial primary key,
  user_id integer not null references users(id) on delete cascade,
  friend_user_id integer references users(id) on delete set null,
  payment_id bigint references payments(id),
  days integer not null,
  reason text not null check (reason in ('invited-friend', 'invited-by-friend')),
  created_at timestamptz not null default now(),
  unique (user_id, payment_id, reason)
);

-- Two-factor sign-in: a pending secret until the first code confirms it; recovery codes are single use, stored hashed.
alter table users add column totp_pending_secret text;
create table recovery_codes (
  id bigserial primary key,
  user_id integer not null references users(id) on delete cascade,
  code_hash text not null,
  used_at timestamptz
);
create index recovery_codes_user on recovery_codes (user_id);
