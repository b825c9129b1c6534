/**
 * An account's row and a sign-in token's row as the users repository (their one reader and
 * writer) answers them. Declared here, below the modules, so that plugins/auth.ts (which puts them
 * on the request) needs no import of the users module, whose routes use that plugin.
 */
export interface UserRow {
  id: number;
  email: string;
  password_hash: string;
  verified: boolean;
  account_status: string;
  first_name: string;
  second_name: string;
  language: string;
  brand: string;
  is_post_affiliate_available: boolean;
  is_wg_section_available: boolean;
  tariff_name: string;
  tariff_key: string;
  subscription_expires_at: Date | string | null;
  totp_enabled: boolean;
  totp_secret: string | null;
  deleted_at: Date | string | null;
  [key: string]: unknown;
}

export interface TokenRow {
  id: number;
  user_id: number;
  created_at: Date | string;
  last_used_at: Date | string;
  expires_at: Date | string;
  rotated_at: Date | string | null;
  user_agent: string;
}
