-- Affiliate statistics as running totals (issue 22, data-scale bench): a partner's page counted its
-- clicks, sign-ups and paying referrals and summed their payments on every visit, so it grew with
-- the partner's success (40x the empty database's time for a partner with 2,857 paying referrals,
-- even with 0025's covering index). The totals are kept by triggers in the same transaction as the
-- rows they count, so they are as exact as the old query and need no job:
--   affiliate_counts  one row per referral code: clicks, sign-ups, paying referrals (any currency);
--   affiliate_paid    one row per code and currency: paying referrals, paid total (minor units).
-- What counts is what the old query counted: a referral is a member whose sign-up attribution
-- carries the code (users.attribution->>'referralID'); a paid payment is status 'succeeded' with a
-- positive amount. Refunds, failures, a code removed from an attribution (a partner's erasure) and
-- a member's erasure (attribution emptied) take their part back through the same triggers.
create table affiliate_counts (
  referral_id text primary key,
  clicks integer not null default 0,
  signups integer not null default 0,
  paying integer not null default 0
);

create table affiliate_paid (
  referral_id text not null,
  currency text not null,
  paying integer not null default 0,
  total_minor bigint not null default 0,
  primary key (referral_id, currency)
);

-- A code's rows that count nothing go (a partner's erasure takes every part back, and then no
-- row names their code).
create or replace function affiliate_drop_empty(code text) returns void language plpgsql as $$
begin
  delete from affiliate_paid where referral_id = code and paying = 0 and total_minor = 0;
  delete from affiliate_counts where referral_id = code and clicks = 0 and signups = 0 and paying = 0;
end $$;

-- Adds (sign 1) or takes back (sign -1) one member's whole part for a code: the sign-up, and
-- per currency whether they paid and how much. Called when the member's code changes.
create or replace function affiliate_member_part(uid integer, code text, sign integer) returns void language plpgsql as $$
declare
  paid record;
  any_paid boolean := false;
begin
  if code is null then return; end if;
  for paid in
    select currency, sum(amount_minor) as total from payments
    where user_id = uid and status = 'succeeded' and amount_minor > 0 group by currency
  loop
    any_paid := true;
    insert into affiliate_paid as a (referral_id, currency, paying, total_minor) values (code, paid.currency, sign, sign * paid.total)
      on conflict (referral_id, currency) do update set paying = a.paying + excluded.paying, total_minor = a.total_minor + excluded.total_minor;
  end loop;
  insert into affiliate_counts as c (referral_id, signups, paying) values (code, sign, case when any_paid then sign else 0 end)
    on conflict (referral_id) do update set signups = c.signups + excluded.signups, paying = c.paying + excluded.paying;
  perform affiliate_drop_empty(code);
end $$;

create or replace function affiliate_on_user() returns trigger language plpgsql as $$
declare
  old_code text := case when tg_op in ('UPDATE', 'DELETE') then old.attribution->>'referralID' end;
  new_code text := case when tg_op in ('INSERT', 'UPDATE') then new.attribution->>'referralID' end;
begin
  if old_code is not distinct from new_code then return null; end if;
  -- The member's payments are read below: serialise with their payment changes (affiliate_on_payment).
  perform pg_advisory_xact_lock(727004, coalesce(new.id, old.id));
  perform affiliate_member_part(coalesce(old.id, new.id), old_code, -1);
  perform affiliate_member_part(coalesce(new.id, old.id), new_code, 1);
  return null;
end $$;

create trigger users_affiliate after insert or update of attribution or delete on users
  for each row execute function affiliate_on_user();

-- One payment's change for its member's code: the total moves by the difference, and the member
-- starts or stops counting as paying (per currency and overall) when their first paid payment
-- appears or their last one goes.
create or replace function affiliate_on_payment() returns trigger language plpgsql as $$
declare
  uid integer := coalesce(new.user_id, old.user_id);
  code text;
  old_counts boolean := tg_op in ('UPDATE', 'DELETE') and old.status = 'succeeded' and old.amount_minor > 0;
  new_counts boolean := tg_op in ('INSERT', 'UPDATE') and new.status = 'succeeded' and new.amount_minor > 0;
  cur text;
  now_in integer;
  before_in integer;
  now_any integer;
  before_any integer;
begin
  if not old_counts and not new_counts then return null; end if;
  if old_counts and new_counts and old.currency = new.currency and old.amount_minor = new.amount_minor and old.user_id = new.user_id then
    return null;
  end if;
  -- Two payments of one member changing at once must not both see "first paid payment".
  perform pg_advisory_xact_lock(727004, uid);
  select attribution->>'referralID' into code from users where id = uid;
  if code is null then return null; end if;
  -- Each currency the change touches: the paid total moves, and the member's paying flag is
  -- compared before (now, minus the new row, plus the old) and now.
  for cur in select distinct c from unnest(array[case when old_counts then old.currency end, case when new_counts then new.currency end]) c where c is not null
  loop
    select count(*) into now_in from payments where user_id = uid and currency = cur and status = 'succeeded' and amount_minor > 0;
    before_in := now_in - (case when new_counts and new.currency = cur then 1 else 0 end) + (case when old_counts and old.currency = cur then 1 else 0 end);
    insert into affiliate_paid as a (referral_id, currency, paying, total_minor)
      values (code, cur, (now_in > 0)::int - (before_in > 0)::int,
        (case when new_counts and new.currency = cur then new.amount_minor else 0 end) - (case when old_counts and old.currency = cur then old.amount_minor else 0 end))
      on conflict (referral_id, currency) do update set paying = a.paying + excluded.paying, total_minor = a.total_minor + excluded.total_minor;
  end loop;
  select count(*) into now_any from payments where user_id = uid and status = 'succeeded' and amount_minor > 0;
  before_any := now_any - new_counts::int + old_counts::int;
  if (now_any > 0) <> (before_any > 0) then
    insert into affiliate_counts as c (referral_id, paying) values (code, (now_any > 0)::int - (before_any > 0)::int)
      on conflict (referral_id) do update set paying = c.paying + excluded.paying;
  end if;
  perform affiliate_drop_empty(code);
  return null;
end $$;

create trigger payments_affiliate after insert or update of status, amount_minor, currency, user_id or delete on payments
  for each row execute function affiliate_on_payment();

create or replace function affiliate_on_click() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into affiliate_counts as c (referral_id, clicks) values (new.referral_id, 1)
      on conflict (referral_id) do update set clicks = c.clicks + 1;
  else
    update affiliate_counts set clicks = clicks - 1 where referral_id = old.referral_id;
    perform affiliate_drop_empty(old.referral_id);
  end if;
  return null;
end $$;

create trigger affiliate_sessions_count after insert or delete on affiliate_sessions
  for each row execute function affiliate_on_click();

-- Builds the totals from the rows (this migration, and data written with triggers off: the
-- data-scale bench's seed). Exactly what the triggers keep.
create or replace function affiliate_totals_rebuild() returns void language plpgsql as $$
begin
  delete from affiliate_counts;
  delete from affiliate_paid;
  insert into affiliate_paid (referral_id, currency, paying, total_minor)
    select u.attribution->>'referralID', p.currency, count(distinct p.user_id), sum(p.amount_minor)
    from payments p join users u on u.id = p.user_id
    where u.attribution->>'referralID' is not null and p.status = 'succeeded' and p.amount_minor > 0
    group by 1, 2;
  insert into affiliate_counts (referral_id, clicks, signups, paying)
    select code, sum(clicks), sum(signups), sum(paying) from (
      select referral_id as code, count(*) as clicks, 0 as signups, 0 as paying from affiliate_sessions group by 1
      union all
      select attribution->>'referralID', 0, count(*), 0 from users where attribution->>'referralID' is not null group by 1
      union all
      select u.attribution->>'referralID', 0, 0, count(distinct p.user_id) from payments p join users u on u.id = p.user_id
        where u.attribution->>'referralID' is not null and p.status = 'succeeded' and p.amount_minor > 0 group by 1
    ) parts group by code;
end $$;

select affiliate_totals_rebuild();
