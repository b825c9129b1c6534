-- Instances wake each other (issue 22): a change to the VPN change log notifies the channel
-- warren_vpn_changes with the schema it was written in (several deployments or test runs may share
-- one server), and every API instance LISTENs (modules/nodes/area.ts), so a long poll on another
-- instance answers at once instead of at its next read of the log (VPN_CHANGE_POLL_MS, kept as
-- the fallback). PostgreSQL delivers a notification at commit, folds identical ones within a
-- transaction into one, and drops it when nobody listens (PGlite alike).
create or replace function vpn_note_change(uid integer) returns void language plpgsql as $$
begin
  perform pg_advisory_xact_lock(727003);
  insert into vpn_changes (user_id) values (uid);
  perform pg_notify('warren_vpn_changes', current_schema());
end $$;
