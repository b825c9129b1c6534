-- Saved payment agreements (Payssion v2 mandates) and the answers of providers that have no
-- idempotency key of their own. Only the provider's identifiers are stored: never card data.

create table payment_mandates (
  id bigserial primary key,
  user_id integer not null references users(id) on delete cascade,
  provider text not null,
  -- The provider's mandate id: charging it needs our API key as well, so it is not a secret on its own.
  mandate_id text not null,
  status text not null default 'pending' check (status in ('pending', 'active', 'revoked')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (provider, mandate_id)
);
create index payment_mandates_user on payment_mandates (user_id, provider, status);

-- What a provider answered when we created the payment for one of our payments (merchant_ref):
-- a retried checkout reuses it instead of creating a second provider payment.
create table provider_checkouts (
  provider text not null,
  merchant_ref text not null,
  provider_ref text not null,
  redirect_url text,
  created_at timestamptz not null default now(),
  primary key (provider, merchant_ref)
);
create index provider_checkouts_ref on provider_checkouts (provider, provider_ref);
