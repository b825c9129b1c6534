-- (Numbered 0021 when it landed, beside another 0021: renumbered, and idempotent for a database that ran it under the old name.)
-- Renewals queued once, by expiry (issue 22): the pass used to read every due renewal and send a
-- job for each on every run (an 8,718-renewal backlog took 16-129 s a minute to re-send, in user-id
-- order, so members whose plan ended first waited longest). queued_key is the job key (member,
-- paid-until, attempt) last queued: the pass reads only renewals whose key changed since.
alter table subscription_renewals add column if not exists queued_key text;
-- Retries due (attempts 1-3 with a retry time), the second half of the pass's query.
create index if not exists subscription_renewals_retry on subscription_renewals (next_retry_at) where failed_attempts between 1 and 3 and next_retry_at is not null;
