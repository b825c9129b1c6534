-- The browsers each account has signed in from (issue 20, security mails): a sign-in from a
-- browser not listed here is mailed to the owner. A browser is a random id in a long-lived
-- httpOnly cookie; only an HMAC of (account, id) under the app secret is stored, so a copy of
-- this table neither gives the cookie nor links one browser across accounts. No address, no user
-- agent. Rows not seen for 400 days (the cookie's own lifetime) are removed at the account's next
-- sign-in, and every row goes with the account's deletion.
create table known_browsers (
  user_id integer not null references users (id) on delete cascade,
  browser_hash text not null,
  first_seen_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  primary key (user_id, browser_hash)
);
