import type { Feature } from '@warren/contract';

/** The id the API seeds the ad blocker with; the empty-list fallback row uses it. */
export const AD_BLOCKER_ID = 1;

export interface FeatureRow extends Feature {
  /** The empty-list fallback row (not from the server). */
  fallback?: boolean;
}

/** Spec section 2: an empty list shows a single Ad Blocker row with a crown. */
export function featureRows(items: readonly Feature[] | undefined): FeatureRow[] {
  if (items && items.length > 0) return [...items];
  return [{ id: AD_BLOCKER_ID, name: 'Ad Blocker', isEnabled: false, premium: true, fallback: true }];
}

export function isAdBlocker(f: Pick<Feature, 'name'>): boolean {
  return /\bad[\s-]?block/i.test(f.name);
}

export type ToggleOutcome =
  /** Saved: a success note that the feature was turned on or off. */
  | { kind: 'saved'; state: boolean; note: 'turnedOn' | 'turnedOff' }
  /** The answer was falsy: "Error to save", and the switch goes back. */
  | { kind: 'notSaved'; state: boolean; note: 'errorToSave' }
  /** An HTTP error: the upgrade dialog, and the switch is flipped back. */
  | { kind: 'upgrade'; state: boolean };

/**
 * The feature toggle of spec section 4: the switch is set to `requested`, then the answer
 * decides. `answer` is the response body, or `{ httpError }` when the call failed.
 */
export function toggleOutcome(requested: boolean, answer: { result?: unknown } | { httpError: unknown }): ToggleOutcome {
  if ('httpError' in answer) return { kind: 'upgrade', state: !requested };
  if (answer.result) return { kind: 'saved', state: requested, note: requested ? 'turnedOn' : 'turnedOff' };
  return { kind: 'notSaved', state: !requested, note: 'errorToSave' };
}
