-- A member's billing address and VAT number (issue 23), printed on receipts. Receipts keep their
-- own copy (receipts.data.billedTo) taken when issued: a later change does not alter them. Deleted
-- with the account (modules/billing/erasure.ts); receipts then lose their copy too.
create table billing_addresses (
  user_id integer primary key references users(id) on delete cascade,
  name text not null,
  line1 text not null,
  line2 text not null default '',
  city text not null,
  postal_code text not null default '',
  country text not null,
  vat_number text not null default '',
  updated_at timestamptz not null default now()
);
