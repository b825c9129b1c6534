-- Secret rotation (issue 22): `npx warren secrets reseal` rewrites every sealed two-factor secret
-- under the current key. The secret itself is unchanged, so that rewrite must not end the staff
-- member's console sessions as a new two-factor secret does: the reseal marks its transactions
-- with warren.resealing = on (transaction-local, modules/secrets/repository.ts).
-- Procedural bodies stay on one line (migrate.ts splits at line-final semicolons).
create or replace function staff_credentials_changed() returns trigger language plpgsql as $$ begin if new.password_hash is distinct from old.password_hash or (old.totp_enabled and not new.totp_enabled) or (new.totp_secret is distinct from old.totp_secret and coalesce(current_setting('warren.resealing', true), '') <> 'on') or new.account_status = 'Suspended' or new.deleted_at is not null then delete from staff_sessions where user_id = new.id; end if; if new.deleted_at is not null and old.deleted_at is null then delete from staff_members where user_id = new.id; end if; return null; end $$;
