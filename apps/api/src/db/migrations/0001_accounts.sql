create table users (
  id serial primary key,
  email text not null,
  password_hash text not null,
  verified boolean not null default false,
  account_status text not null default 'Inactive',
  first_name text not null default '',
  second_name text not null default '',
  language text not null default 'en',
  brand text not null,
  is_post_affiliate_available boolean not null default false,
  is_wg_section_available boolean not null default true,
  tariff_name text not null default 'Free',
  tariff_key text not null default 'free-plan',
  subscription_expires_at timestamptz,
  totp_secret text,
  totp_enabled boolean not null default false,
  -- Marketing attribution captured at sign-up (cid, clickID, utm fields, referralID, ...): opaque ids only.
  attribution jsonb not null default '{}'::jsonb,
  marketing_emails boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create unique index users_email_unique on users (lower(email));

create table auth_tokens (
  id bigserial primary key,
  user_id integer not null references users(id) on delete cascade,
  token_hash text not null unique,
  created_at timestamptz not null default now(),
  last_used_at timestamptz not null default now(),
  expires_at timestamptz not null,
  -- Set when a fresh token replaced this one; it keeps working until the grace period ends.
  rotated_at timestamptz,
  user_agent text not null default ''
);
create index auth_tokens_user on auth_tokens (user_id);

create table email_tokens (
  id bigserial primary key,
  user_id integer not null references users(id) on delete cascade,
  purpose text not null check (purpose in ('verify', 'reset', 'onetime')),
  token_hash text not null unique,
  payload jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index email_tokens_user on email_tokens (user_id, purpose);
