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
  /** The plan does not include this feature (403 / 402): the upgrade dialog, and the switch is flipped back. */
  | { kind: 'upgrade'; state: boolean }
  /** Any other failure (a 5xx, no network, a 404): an error that says so, and the switch is flipped back. */
  | { kind: 'failed'; state: boolean };

/** Answers that mean "your plan does not include this"; only these offer an upgrade. */
const PLAN_STATUSES = new Set([402, 403]);

/**
 * The feature toggle of spec section 4: the switch is set to `requested`, then the answer
 * decides. `answer` is the response body, or `{ httpError, status }` when the call failed
 * (status null without an HTTP answer). A server error never offers an upgrade: a paying
 * customer who hits one would be told to buy what they have.
 */
export function toggleOutcome(
  requested: boolean,
  answer: { result?: unknown } | { httpError: unknown; status: number | null },
): ToggleOutcome {
  if ('httpError' in answer)
    return {
      kind: answer.status !== null && PLAN_STATUSES.has(answer.status) ? 'upgrade' : 'failed',
      state: !requested,
    };
  if (answer.result) return { kind: 'saved', state: requested, note: requested ? 'turnedOn' : 'turnedOff' };
  return { kind: 'notSaved', state: !requested, note: 'errorToSave' };
}
