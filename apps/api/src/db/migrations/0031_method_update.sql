-- Changing the card without buying again (issue 23): the provider's own method update (Stripe
-- Checkout in setup mode, the sandbox's page with nothing to pay) started from /subscription.
-- The open update's provider reference, read back when the customer returns; null: none open.
alter table subscription_renewals add column method_update_ref text;
alter table subscription_renewals add column method_update_at timestamptz;
