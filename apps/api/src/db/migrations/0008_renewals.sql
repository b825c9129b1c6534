-- Renewals (issue 13): what a subscription renews with, when, and what came of the attempts.
-- Only provider references are stored (Stripe customer and payment method ids, a Payssion v2
-- mandate id, the sandbox's saved test card ref) and the label the provider reports: never card data.

-- purchase: bought by hand at checkout; renewal: charged by auto-renew.
alter table payments add column kind text not null default 'purchase' check (kind in ('purchase', 'renewal'));
-- The buyer's auto-renew choice at checkout (null: the brand's default); stored with the refs once the payment succeeds.
alter table payments add column auto_renew boolean;
-- Why the provider refused the payment (a failed renewal attempt), as the provider said it.
alter table payments add column failure_reason text;

create table subscription_renewals (
  user_id integer primary key references users(id) on delete cascade,
  auto_renew boolean not null,
  -- The provider that can charge again and its references (null: nothing saved that can renew).
  provider text,
  customer_ref text,
  method_ref text,
  -- "Visa •••• 4242" as the provider reports it, or the provider's name.
  method_label text,
  -- What a renewal buys: the regular price list (never a one-time discount or special offer).
  tariff_id integer references tariffs(id),
  price_list text,
  currency text,
  -- When the next renewal is charged (ahead of the paid-until it extends); null: nothing to renew.
  renews_at timestamptz,
  -- The paid-until the pending renewal extends: with the attempt number it makes the idempotency key.
  period_end timestamptz,
  failed_attempts integer not null default 0,
  next_retry_at timestamptz,
  last_error text,
  -- The provider said the saved method can never be charged again (lost card, revoked mandate).
  unusable boolean not null default false,
  updated_at timestamptz not null default now()
);
create index subscription_renewals_due on subscription_renewals (renews_at) where auto_renew and not unusable;

-- Billing mails sent once per user, kind and period (reminder, renewal failed, plan ended,
-- receipt); a row without sent_at is a mail still to (re)send.
create table billing_notices (
  user_id integer not null references users(id) on delete cascade,
  kind text not null,
  period_key text not null,
  created_at timestamptz not null default now(),
  sent_at timestamptz,
  attempts integer not null default 0,
  payload jsonb not null default '{}'::jsonb,
  primary key (user_id, kind, period_key)
);
create index billing_notices_unsent on billing_notices (created_at) where sent_at is null;

-- The sandbox provider's saved test cards (what a real provider keeps): a card saved by a paid
-- checkout can be charged again without a page; decline_next makes its next charge fail (tests).
create table sandbox_cards (
  id text primary key,
  label text not null,
  decline_next boolean not null default false,
  unusable boolean not null default false,
  created_at timestamptz not null default now()
);
alter table sandbox_payments add column save_card boolean not null default false;
alter table sandbox_payments add column card_id text references sandbox_cards(id);
