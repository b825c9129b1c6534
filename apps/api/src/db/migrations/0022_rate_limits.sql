-- Rate-limit counters shared by every API instance through the database (lib/rate-limit.ts,
-- rate-limiter-flexible's PostgreSQL store): used without Redis, and while Redis is unreachable, so
-- that N instances never allow N times the guesses. One row per budget key; `expire` is epoch ms.
create table if not exists rate_limits (
  key text primary key,
  points integer not null default 0,
  expire bigint
);
