-- WireGuard keys with a lifetime (issue 23): per device "never" (null, the default: today's
-- behaviour) or 1-30 days. key_expires_at is when the current key stops working: the nodes drop its
-- peer (the desired state leaves expired keys out) until the customer's browser makes a new key pair
-- for the same device (a rotation: new public key, same name and addresses, a new lifetime).
-- key_reminded_at: the reminder mail for the current key went out (claimed before sending; a rotation
-- or a new lifetime clears it), so each key is reminded once.
alter table wg_devices
  add column key_lifetime_days integer check (key_lifetime_days between 1 and 30),
  add column key_expires_at timestamptz,
  add column key_reminded_at timestamptz,
  add constraint wg_devices_key_lifetime_set check ((key_lifetime_days is null) = (key_expires_at is null));
create index wg_devices_key_expiry on wg_devices (key_expires_at) where key_expires_at is not null;

-- A new expiry changes what nodes should hold (and when a long poll must wake): it is a change of
-- the account like a new key (migration 0003's trigger, with key_expires_at added).
drop trigger wg_devices_vpn_changed on wg_devices;
create trigger wg_devices_vpn_changed after insert or delete or update of public_key, addr_index, user_id, key_expires_at on wg_devices
  for each row execute function vpn_device_changed();
