create table tariffs (
  id integer primary key,
  key text not null unique,
  name text not null,
  -- null: no expiry (the free plan, lifetime)
  period_days integer,
  is_free boolean not null default false,
  is_lifetime boolean not null default false,
  is_trial boolean not null default false,
  sort integer not null default 0
);

create table prices (
  price_list text not null,
  tariff_id integer not null references tariffs(id),
  currency text not null,
  amount_minor integer not null check (amount_minor > 0),
  primary key (price_list, tariff_id, currency)
);

create table promo_codes (
  code text primary key,
  percent_off integer not null check (percent_off between 1 and 100),
  valid_from timestamptz,
  valid_until timestamptz,
  max_uses integer,
  used_count integer not null default 0,
  -- null: every paid tariff
  tariff_ids integer[]
);

create table payments (
  id bigserial primary key,
  public_id text not null unique,
  user_id integer not null references users(id),
  tariff_id integer not null references tariffs(id),
  currency text not null,
  amount_minor integer not null,
  price_list text not null,
  promo_code text,
  provider text not null,
  provider_ref text,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed', 'refunded')),
  -- The client's idempotency key: repeated checkouts with the same key reuse this payment.
  idempotency_key text not null,
  -- True once the subscription was extended for this payment (exactly once).
  applied boolean not null default false,
  period_start timestamptz,
  period_end timestamptz,
  return_url text,
  created_at timestamptz not null default now(),
  paid_at timestamptz,
  refunded_at timestamptz,
  unique (user_id, idempotency_key)
);
create unique index payments_provider_ref on payments (provider, provider_ref) where provider_ref is not null;
create index payments_user on payments (user_id, created_at);

create table provider_events (
  provider text not null,
  event_id text not null,
  received_at timestamptz not null default now(),
  payment_id bigint references payments(id),
  kind text not null,
  primary key (provider, event_id)
);

-- The built-in sandbox provider's own state: what a real provider keeps on its side.
create table sandbox_payments (
  id text primary key,
  amount_minor integer not null,
  currency text not null,
  description text not null,
  status text not null default 'open' check (status in ('open', 'paid', 'declined', 'refunded')),
  notify_url text not null,
  return_url text not null,
  merchant_ref text not null,
  idempotency_key text not null unique,
  -- Webhooks not yet acknowledged by the merchant; a retry loop re-sends them.
  pending_events jsonb not null default '[]'::jsonb,
  created_at timestamptz not null default now()
);

create table conversion_postbacks (
  id bigserial primary key,
  user_id integer not null references users(id),
  payment_id bigint not null references payments(id),
  url text not null,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  unique (payment_id, url)
);

create table postback_attempts (
  id bigserial primary key,
  postback_id bigint not null references conversion_postbacks(id) on delete cascade,
  attempted_at timestamptz not null default now(),
  status_code integer,
  error text
);

create table affiliate_sessions (
  id bigserial primary key,
  referral_id text not null,
  url text not null,
  user_id integer references users(id),
  created_at timestamptz not null default now()
);
create index affiliate_sessions_referral on affiliate_sessions (referral_id);
