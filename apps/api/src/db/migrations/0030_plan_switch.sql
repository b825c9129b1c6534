-- Plan switches (issue 23): monthly to yearly and back from /subscription.
-- switch: a move to a longer period paid now, the unused part of the current period credited
-- (modules/billing/plan-switch.ts). A move to a shorter period is no payment: it is scheduled on
-- the renewal (subscription_renewals.scheduled_tariff_id) and charged by the renewal job.
alter table payments drop constraint if exists payments_kind_check;
alter table payments add constraint payments_kind_check check (kind in ('purchase', 'renewal', 'switch'));
-- The target plan's price before the credit (amount_minor = list_amount_minor - credit_minor).
alter table payments add column list_amount_minor integer;
alter table payments add column credit_minor integer;
-- What the switch was quoted against: the plan and paid-until it replaces. Applied only while both still hold
-- (a renewal, a refund or another switch since makes it stale: it is refunded, never applied).
alter table payments add column switch_from_tariff_id integer references tariffs(id);
alter table payments add column switch_basis_expires timestamptz;
-- Unused time that is not credited as money (a support grant, another currency) and is carried over as time.
alter table payments add column switch_carried_ms bigint;
-- A payment whose unused part went into a switch: its period ended there (no second credit, no money-back).
alter table payments add column superseded_by integer references payments(id);

-- A move to a shorter period, taken at the next renewal; null: none scheduled.
alter table subscription_renewals add column scheduled_tariff_id integer references tariffs(id);
