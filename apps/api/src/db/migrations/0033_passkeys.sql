-- Passkeys (WebAuthn, issue 23): credentials an account signs in with (without a password, or as
-- its second factor), and the challenges of the ceremonies in flight. Staff are accounts with a
-- role (staff_roles), so a passkey registered from the operator console is the account's too.
create table passkeys (
  id serial primary key,
  user_id integer not null references users (id) on delete cascade,
  -- base64url of the authenticator's credential id; unique across accounts (WebAuthn L3 §7.1 step 22).
  credential_id text not null unique,
  -- base64url of the COSE public key as the authenticator made it (no secret: it only verifies signatures).
  public_key text not null,
  -- The authenticator's signature counter (0 when it keeps none, as synced passkeys do).
  counter bigint not null default 0,
  transports text[] not null default '{}',
  name text not null,
  -- The WebAuthn user handle given at registration (random, one per account, never its id or email); a
  -- discoverable sign-in must name this one.
  user_handle text not null,
  -- 'singleDevice' or 'multiDevice' (synced), and whether it is backed up now.
  device_type text not null,
  backed_up boolean not null default false,
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index passkeys_user on passkeys (user_id);

-- A ceremony's challenge: single use (consumed by one DELETE ... RETURNING, so two parallel
-- verifications of one challenge cannot both pass), short-lived, bound to what started it (a
-- session, a browser) and to its purpose. Only a hash of the challenge is kept.
create table webauthn_challenges (
  challenge_hash text primary key,
  purpose text not null,
  binding text not null,
  user_id integer references users (id) on delete cascade,
  expires_at timestamptz not null
);
create index webauthn_challenges_expiry on webauthn_challenges (expires_at);
