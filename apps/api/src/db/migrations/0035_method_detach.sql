-- Changing the card (issue 23): once the new method is taken, the old one is detached at the
-- provider (Stripe: the PaymentMethod detached from the customer; the sandbox: its card deleted).
-- A detach the provider refused or could not answer waits here; the billing pass tries again with
-- backoff. Given up after the last attempt, the row stays as the operator's note (next_at null,
-- last_error): the card is no longer used by us, but still on the provider's customer.
create table payment_method_detaches (
  id bigserial primary key,
  provider text not null,
  customer_ref text,
  method_ref text not null,
  attempts integer not null default 1,
  next_at timestamptz,
  last_error text not null default '',
  created_at timestamptz not null default now()
);
create index payment_method_detaches_due on payment_method_detaches (next_at) where next_at is not null;
