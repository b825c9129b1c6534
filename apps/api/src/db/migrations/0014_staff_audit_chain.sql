-- Issue 20: the staff audit log becomes tamper-evident, and keeps no customer's address.
--
-- Each row carries a hash chained to the previous row's: sha256 over a canonical encoding of the
-- row and the previous hash (modules/staff/audit-chain.ts computes the same thing independently;
-- `npx warren staff audit verify` recomputes the whole chain outside the database). A BEFORE INSERT
-- trigger chains every insert, whoever makes it, under a row lock on the chain's head, so parallel
-- writers queue and the chain never forks; `seq` has no gaps (a rolled-back insert rolls the head back).
--
-- The personal fields (actor and target text, IP address, user agent) enter the chain only through
-- a salted commitment (personal_hash = sha256(salt, actor, target, ip, user_agent)). A deliberate
-- pseudonymisation (account deletion, the retention of staff addresses) replaces them and erases
-- the salt: the commitment and the chain stay valid, the old values cannot be guessed back from it,
-- and the verifier accepts an erased row only when a later chained `pseudonymise` row records it.
-- Everything else in a row stays immutable.

-- 1. Customers are no staff events (finding 3): failed console sign-ins on accounts that are not
--    staff go, and failed sign-ins keep no address (whoever tried had not proved to be the member).
alter table staff_audit disable trigger staff_audit_no_change;
delete from staff_audit a where a.action = 'sign-in-failed'
  and not exists (select 1 from staff_members m join users u on u.id = m.user_id where lower(u.email) = lower(a.target));
update staff_audit set ip = '', user_agent = '' where action = 'sign-in-failed' and (ip <> '' or user_agent <> '');

-- 2. The chain.
alter table staff_audit add column seq bigint;
alter table staff_audit add column personal_salt text;
alter table staff_audit add column personal_hash text;
alter table staff_audit add column prev_hash text;
alter table staff_audit add column row_hash text;

-- One field of the canonical encoding: null is '~', a value is its length in bytes, ':' and itself.
create function staff_audit_field(v text) returns text language sql immutable as $$
  select case when v is null then '~' else octet_length(v)::text || ':' || v end
$$;
create function staff_audit_sha(v text) returns text language sql immutable as $$
  select encode(sha256(convert_to(v, 'UTF8')), 'hex')
$$;
create function staff_audit_personal_hash(salt text, actor text, target text, ip text, user_agent text) returns text language sql immutable as $$
  select staff_audit_sha('warren-staff-audit-personal-v1|' || staff_audit_field(salt) || staff_audit_field(actor) || staff_audit_field(target) || staff_audit_field(ip) || staff_audit_field(user_agent))
$$;
-- `at` as microseconds since the epoch and `detail` as jsonb's own (normalised) text.
create function staff_audit_row_hash(seq bigint, at timestamptz, actor_user_id integer, role text, action text, target_user_id integer, detail jsonb, personal_hash text, prev_hash text) returns text language sql immutable as $$
  select staff_audit_sha('warren-staff-audit-v1|' || staff_audit_field(seq::text) || staff_audit_field(((extract(epoch from at) * 1000000)::bigint)::text)
    || staff_audit_field(actor_user_id::text) || staff_audit_field(role) || staff_audit_field(action) || staff_audit_field(target_user_id::text)
    || staff_audit_field(detail::text) || staff_audit_field(personal_hash) || staff_audit_field(prev_hash))
$$;

-- The head: the last row's seq and hash (also exported as metrics and logged at each write).
create table staff_audit_head (
  id boolean primary key default true check (id),
  seq bigint not null,
  hash text not null
);

-- Existing rows, in their order.
do $$
declare
  r record;
  prev text := repeat('0', 64);
  n bigint := 0;
  salt text;
  ph text;
begin
  for r in select * from staff_audit order by id loop
    n := n + 1;
    salt := gen_random_uuid()::text;
    ph := staff_audit_personal_hash(salt, r.actor, r.target, r.ip, r.user_agent);
    update staff_audit set seq = n, personal_salt = salt, personal_hash = ph, prev_hash = prev,
      row_hash = staff_audit_row_hash(n, r.at, r.actor_user_id, r.role, r.action, r.target_user_id, r.detail, ph, prev)
    where id = r.id
    returning row_hash into prev;
  end loop;
  insert into staff_audit_head (seq, hash) values (n, prev);
end $$;

alter table staff_audit alter column seq set not null;
alter table staff_audit alter column personal_hash set not null;
alter table staff_audit alter column prev_hash set not null;
alter table staff_audit alter column row_hash set not null;
create unique index staff_audit_seq on staff_audit (seq);
-- The rows that still hold a staff address (the retention's search; erased rows leave the index).
create index staff_audit_addressed on staff_audit (at) where ip <> '' or user_agent <> '';

create function staff_audit_chain() returns trigger language plpgsql as $$
declare
  head staff_audit_head%rowtype;
begin
  -- The row lock queues every writer: each reads the head the previous one committed.
  select * into head from staff_audit_head where id for update;
  new.seq := head.seq + 1;
  new.prev_hash := head.hash;
  new.personal_salt := gen_random_uuid()::text;
  new.personal_hash := staff_audit_personal_hash(new.personal_salt, new.actor, new.target, new.ip, new.user_agent);
  new.row_hash := staff_audit_row_hash(new.seq, new.at, new.actor_user_id, new.role, new.action, new.target_user_id, new.detail, new.personal_hash, new.prev_hash);
  update staff_audit_head set seq = new.seq, hash = new.row_hash where id;
  return new;
end $$;
create trigger staff_audit_chain before insert on staff_audit for each row execute function staff_audit_chain();

-- Append-only, except the recorded pseudonymisation: personal fields replaced with the salt erased,
-- nothing chained changed.
create or replace function staff_audit_append_only() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and new.personal_salt is null
     and (new.id, new.seq, new.at, new.actor_user_id, new.role, new.action, new.target_user_id, new.detail, new.personal_hash, new.prev_hash, new.row_hash)
         is not distinct from (old.id, old.seq, old.at, old.actor_user_id, old.role, old.action, old.target_user_id, old.detail, old.personal_hash, old.prev_hash, old.row_hash) then
    return new;
  end if;
  raise exception 'staff_audit is append-only (% refused)', tg_op using errcode = 'insufficient_privilege';
end $$;
alter table staff_audit enable trigger staff_audit_no_change;

-- The head is written by the chain trigger only.
create function staff_audit_head_guard() returns trigger language plpgsql as $$
begin
  if pg_trigger_depth() > 1 then return new; end if;
  raise exception 'staff_audit_head is written by the audit chain only' using errcode = 'insufficient_privilege';
end $$;
create trigger staff_audit_head_guard before update or delete on staff_audit_head for each row execute function staff_audit_head_guard();
