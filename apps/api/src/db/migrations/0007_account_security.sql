-- The last TOTP time step an account used (sign-in, two-factor on or off). A code of that step or
-- an earlier one is refused, so a seen code cannot be replayed. Set with a conditional UPDATE, so
-- parallel requests with one code succeed once.
alter table users add column totp_last_step bigint;
