import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { hmac } from '../lib/secrets.js';
import type { PaymentProvider } from './provider.js';
import { type SandboxProvider, sandboxProvider } from './sandbox.js';
import { stripeProvider } from './stripe.js';

/** The providers this deployment has configured; a provider without keys is simply absent. */
export function buildProviders(config: Config, db: Database, pageBaseUrl: () => string): { providers: Partial<Record<string, PaymentProvider>>; sandbox?: SandboxProvider } {
  const providers: Partial<Record<string, PaymentProvider>> = {};
  let sandbox: SandboxProvider | undefined;
  if (config.billing.sandbox) {
    sandbox = sandboxProvider(db, hmac(config.appSecret, 'sandbox-webhooks'), pageBaseUrl);
    providers.sandbox = sandbox;
  }
  if (config.billing.stripe) providers.stripe = stripeProvider(config.billing.stripe);
  return { providers, sandbox };
}
