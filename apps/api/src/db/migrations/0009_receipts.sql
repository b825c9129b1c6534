-- Receipts (issue 13): one per paid payment, numbered without gaps in sequence per seller. A
-- number is allocated once, in the same transaction as its receipt row, so a rolled-back
-- request leaves no hole and parallel requests for one payment get the same receipt.

create table receipt_counters (
  seller_id text primary key,
  last_number integer not null check (last_number > 0)
);

create table receipts (
  payment_id bigint primary key references payments(id),
  seller_id text not null,
  number integer not null check (number > 0),
  issued_at timestamptz not null default now(),
  -- What the receipt says, fixed when it was issued (seller, buyer, item, period, amount, tax):
  -- a later change of the brand's config or the buyer's email does not rewrite an issued receipt.
  data jsonb not null,
  unique (seller_id, number)
);

-- A customer's money-back request from the dashboard: one per payment, so parallel requests
-- refund once. Removed again when the provider refused, so the customer can try again.
create table refund_requests (
  payment_id bigint primary key references payments(id),
  user_id integer not null references users(id) on delete cascade,
  requested_at timestamptz not null default now()
);
