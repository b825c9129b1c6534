import { expect, type Page } from '@playwright/test';
import { appPages } from './routes';
import { test } from './users';

/**
 * On a phone a free user sees the floating Upgrade button at the bottom of every logged-in page
 * (spec section 2). It must never cover an action: scrolled to the very bottom, its box touches
 * no button, link or field of the page. Every logged-in page the router knows, at 390x844.
 */
const signedInPages = (await appPages()).filter((p) => p.signedIn);

type Box = { x: number; y: number; width: number; height: number };

/** The page's controls the floating button overlaps, as readable lines. */
async function covered(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const floating = document.querySelector<HTMLElement>('[data-testid="floating-upgrade"]');
    if (!floating) return [];
    const f = floating.getBoundingClientRect();
    const out: string[] = [];
    const controls = document.querySelectorAll<HTMLElement>(
      '#main-content a[href], #main-content button, #main-content input, #main-content select, #main-content textarea, #main-content [role="button"], #main-content [tabindex="0"]',
    );
    for (const el of controls) {
      const r: Box = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      const overlaps = r.x < f.right && r.x + r.width > f.left && r.y < f.bottom && r.y + r.height > f.top;
      if (overlaps)
        out.push(
          `${el.tagName.toLowerCase()} "${(el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 40)}" at y=${Math.round(r.y)}..${Math.round(r.y + r.height)}, button at ${Math.round(f.top)}..${Math.round(f.bottom)}`,
        );
    }
    return out;
  });
}

test.describe('floating upgrade button', { tag: '@phone' }, () => {
  test.skip(({ isMobile }) => !isMobile, 'the floating button shows on phones and tablets only');

  test('never covers an action on any logged-in page, scrolled to the bottom', async ({
    browser,
    freeUser: storageState,
  }, info) => {
    test.setTimeout(180_000);
    const { viewport, userAgent, deviceScaleFactor, isMobile, hasTouch, baseURL } = info.project.use;
    const context = await browser.newContext({
      viewport,
      userAgent,
      deviceScaleFactor,
      isMobile,
      hasTouch,
      baseURL,
      storageState,
    });
    const page = await context.newPage();
    const problems: string[] = [];
    let checked = 0;
    for (const p of signedInPages) {
      await page.goto(p.path);
      // Pages a free user may not open send them on (/plans has no floating button, spec section 2).
      await page.waitForLoadState('networkidle');
      await expect(
        page.locator('.mantine-Skeleton-root[data-visible], .mantine-Loader-root, [aria-busy="true"]'),
      ).toHaveCount(0);
      const button = page.getByTestId('floating-upgrade');
      if (!(await button.isVisible())) continue;
      checked++;
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.waitForFunction(
        () => Math.ceil(window.scrollY + window.innerHeight) >= document.documentElement.scrollHeight - 1,
      );
      problems.push(...(await covered(page)).map((line) => `${new URL(page.url()).pathname}: ${line}`));
    }
    // The rule is only tested if the button showed somewhere (the dashboard at least).
    expect(checked).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
