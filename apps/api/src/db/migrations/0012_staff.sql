-- The operator console (issue 15): staff roles, staff sessions, the append-only audit log, a
-- minimal log of mails sent, and the days of a support grant.

-- A staff member is an account with a role, granted only from the operator's CLI.
create table staff_members (
  user_id integer primary key references users(id) on delete cascade,
  role text not null check (role in ('support', 'admin')),
  granted_at timestamptz not null default now()
);

-- Staff sign-ins: a random token kept only as its sha256, sent in an HttpOnly cookie. Never a
-- customer token (those live in auth_tokens). xsrf_key_hash binds the session to the browser's XSRF
-- key (plugins/xsrf.ts): a state-changing call must come with the key it signed in with.
create table staff_sessions (
  id bigserial primary key,
  user_id integer not null references users(id) on delete cascade,
  token_hash text not null unique,
  xsrf_key_hash text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz not null default now(),
  ip text not null default '',
  user_agent text not null default ''
);
create index staff_sessions_user on staff_sessions (user_id);

-- A role taken away ends the sessions at once.
create function staff_member_gone() returns trigger language plpgsql as $$ begin delete from staff_sessions where user_id = old.user_id; return null; end $$;
create trigger staff_member_gone after delete on staff_members for each row execute function staff_member_gone();

-- A credential change ends staff sessions (password changed or reset, two-factor off, the account
-- deleted or suspended); deletion also takes the role away. Sign-out-everywhere is handled where
-- customer sessions are deleted (users repository deleteTokensOf).
create function staff_credentials_changed() returns trigger language plpgsql as $$ begin if new.password_hash is distinct from old.password_hash or (old.totp_enabled and not new.totp_enabled) or new.totp_secret is distinct from old.totp_secret or new.account_status = 'Suspended' or new.deleted_at is not null then delete from staff_sessions where user_id = new.id; end if; if new.deleted_at is not null and old.deleted_at is null then delete from staff_members where user_id = new.id; end if; return null; end $$;
create trigger staff_credentials_changed after update of password_hash, totp_enabled, totp_secret, account_status, deleted_at on users for each row execute function staff_credentials_changed();

-- Who did what to whom, when and from where. No foreign keys: rows outlive the accounts they name.
-- Append-only: UPDATE, DELETE and TRUNCATE are refused by triggers, for every role but a superuser
-- who drops them (which is itself visible in the schema).
create table staff_audit (
  id bigserial primary key,
  at timestamptz not null default now(),
  actor_user_id integer,
  actor text not null,
  role text,
  action text not null,
  target_user_id integer,
  target text not null default '',
  detail jsonb not null default '{}'::jsonb,
  ip text not null default '',
  user_agent text not null default ''
);
create index staff_audit_target on staff_audit (target_user_id, id);
create function staff_audit_append_only() returns trigger language plpgsql as $$ begin raise exception 'staff_audit is append-only (% refused)', tg_op using errcode = 'insufficient_privilege'; end $$;
create trigger staff_audit_no_change before update or delete on staff_audit for each row execute function staff_audit_append_only();
create trigger staff_audit_no_truncate before truncate on staff_audit for each statement execute function staff_audit_append_only();

-- Mails sent to an account: kind and time only (no body, no links), for the console.
create table mail_log (
  id bigserial primary key,
  user_id integer not null references users(id) on delete cascade,
  kind text not null,
  sent_at timestamptz not null default now()
);
create index mail_log_user on mail_log (user_id, id);

-- A support grant of N days: a zero-amount payment whose period is these days (null: the tariff's period).
alter table payments add column grant_days integer check (grant_days between 1 and 3650);

-- What newer agents report besides load and peers (both optional in the report).
alter table vpn_nodes add column agent_version text;
alter table vpn_nodes add column last_apply_error text;
