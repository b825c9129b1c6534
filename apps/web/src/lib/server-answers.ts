/**
 * The page the server rendered with its own price list answer (main.tsx reads the query state
 * that came with the HTML). On that first navigation the server has already decided a discount
 * window (it rendered the page inside the window, or sent the visitor to /checkout), so the
 * checkout's loader does not second-guess it with this device's clock, which may be off.
 */
let pricedLanding: string | null = null;

export function rememberServerPrices(pathname: string): void {
  pricedLanding = pathname;
}

/** Whether this navigation is to the page the server rendered with its prices; true once at most. */
export function takeServerPrices(pathname: string): boolean {
  const hit = pricedLanding === pathname;
  pricedLanding = null;
  return hit;
}
