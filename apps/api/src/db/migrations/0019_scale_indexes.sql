-- Indexes for what slowed down with data (issue 22, measured at 200,000 accounts: affiliate stats
-- 1.17 s vs 14 ms empty, rewards 460 ms vs 14 ms, the staff search by an email fragment 840 ms vs 13 ms).
-- Affiliate statistics and rewards find the accounts a code brought by the sign-up attribution.
create index users_attribution_referral on users ((attribution->>'referralID'));
create index users_attribution_friend on users ((attribution->>'friendID'));
-- The staff console's search by any part of an email (`lower(email) like '%…%'`): trigrams.
-- The extension lives in public whatever the schema Warren runs in (tests run one schema each; an
-- extension exists once per database), so its operator class is named with its schema.
create extension if not exists pg_trgm with schema public;
create index users_email_trgm on users using gin (lower(email) public.gin_trgm_ops);
