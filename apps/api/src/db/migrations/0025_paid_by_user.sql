-- Affiliate statistics (issue 22, data-scale bench): the paid totals of the members a code brought
-- read their succeeded payments; with thousands of referrals PostgreSQL scanned all payments (600,000
-- in the bench: 0.9 s). A covering index of paid payments by member makes it an index-only lookup
-- per referral (0.2 s warm for 2,857 referrals on this loaded machine).
create index if not exists payments_user_paid on payments (user_id) include (currency, amount_minor) where status = 'succeeded' and amount_minor > 0;
