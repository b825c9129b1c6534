import type { GuardKind } from './guards';

/** What a route declares in `handle`: its title key (titles.*) and the guard its loader runs. */
export interface RouteHandle {
  titleKey?: string;
  /** The guard of spec section 2 on this route (its loader is guard(kind)); tests read it from here. */
  guard?: GuardKind;
  /** A page in a fixed language (ios-download-ru): its title is in that language too, whatever the app's. */
  language?: 'en' | 'ru' | 'zh';
  /** A page of the operator console (/staff): not a customer page; e2e/tests/staff.spec.ts audits it. */
  staff?: boolean;
}
