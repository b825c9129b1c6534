import AxeBuilder from '@axe-core/playwright';
import { expect, type Browser, type Page, type TestInfo } from '@playwright/test';
import { CHECKOUT_VARIANTS } from '@warren/contract';
import { appPages, type AppPage } from './routes';
import { test, type Storage } from './users';

/**
 * WCAG 2.2 AA on every page: axe-core with the WCAG 2.0/2.1/2.2 A and AA rules on each page the
 * router knows (routes.ts reads them from router.tsx), signed out, as a free user and as a
 * paying one; with the user menu, the drawer and a dialog open; then a few pages in Russian,
 * Chinese and the dark scheme. Desktop audits every route; the phone audits each page once
 * (routes that share a page, like the fifteen checkout variants, differ only in data).
 */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

const allPages = await appPages();

/**
 * What a checkout variant shows: its plans, language and whether it counts down a discount.
 * Variants of one shape (/checkout, /checkout-a, /checkout-page; -15 and -25) render the same
 * elements with other numbers, so the desktop audits one of each shape.
 */
function shapeOf(p: AppPage): string {
  const v = CHECKOUT_VARIANTS[p.path];
  if (!v) return p.path;
  return `${p.titleKey}|${[...v.tariffIds].sort().join(',')}|${v.language ?? 'en'}|${v.discountCookie ? 'discount' : ''}|${v.priceList === 'default' || v.discountCookie ? '' : v.priceList}`;
}

/** Desktop: every route of its own shape. Phone: the first route of each page (same title key). */
function pagesFor(isMobile: boolean, signedIn: boolean): AppPage[] {
  const pages = allPages.filter((p) => p.signedIn === signedIn);
  if (!isMobile) return pages.filter((p, i) => pages.findIndex((q) => shapeOf(q) === shapeOf(p)) === i);
  return pages.filter((p, i) => !p.titleKey || pages.findIndex((q) => q.titleKey === p.titleKey) === i);
}

/** Time for an audit of `pages` pages: a loaded 2-core CI machine took up to 9 s a page. */
const budget = (pages: number) => 30_000 + pages * 15_000;

type Violations = Awaited<ReturnType<AxeBuilder['analyze']>>['violations'];

/** A readable summary: rule, impact, node count, then each distinct node message with a target. */
function summary(violations: Violations) {
  return violations.map((v) => {
    const seen = new Map<string, string>();
    for (const n of v.nodes) {
      const why = n.failureSummary?.split('\n')[1]?.trim() ?? v.help;
      if (!seen.has(why)) seen.set(why, n.target.join(' '));
    }
    return `${v.id} (${v.impact}, ${v.nodes.length}): ${[...seen]
      .slice(0, 6)
      .map(([why, where]) => `${where} — ${why}`)
      .join(' | ')}`;
  });
}

/** The page has settled: a heading or form is shown and nothing is loading (skeletons, spinners). */
async function settled(page: Page) {
  await page.waitForLoadState('load');
  await expect(page.locator('#root h1, #root h2, #root form').first()).toBeVisible({ timeout: 15_000 });
  await expect(
    page.locator('.mantine-Skeleton-root[data-visible], .mantine-Loader-root, [aria-busy="true"]'),
  ).toHaveCount(0, { timeout: 15_000 });
  await page.evaluate(() => document.fonts.ready);
}

/** The violations on this page as readable lines (empty when it passes). */
async function violations(page: Page, label: string): Promise<string[]> {
  await settled(page);
  const result = await new AxeBuilder({ page })
    .options({ resultTypes: ['violations'] })
    .withTags(TAGS)
    .analyze();
  return summary(result.violations).map((line) => `${label} (${new URL(page.url()).pathname}): ${line}`);
}

/** Visits each path in turn and collects every page's violations, so one run reports them all. */
async function auditAll(page: Page, paths: string[], label: string): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    await page.goto(path);
    found.push(...(await violations(page, `${label} ${path}`)));
  }
  return found;
}

test.describe('accessibility (axe, WCAG 2.2 AA)', { tag: '@phone' }, () => {
  test('the router gives this spec its pages', () => {
    expect(allPages.filter((p) => p.signedIn).map((p) => p.path)).toEqual(
      expect.arrayContaining(['/dashboard', '/server-locations', '/profile']),
    );
    expect(allPages.filter((p) => !p.signedIn).map((p) => p.path)).toEqual(
      expect.arrayContaining(['/', '/sign-up', '/checkout', '/checkout-ru-15', '/ios-download']),
    );
  });

  test('signed-out and iOS pages', async ({ page, isMobile }) => {
    const paths = pagesFor(isMobile, false)
      .filter((p) => !CHECKOUT_VARIANTS[p.path])
      .map((p) => p.path);
    test.setTimeout(budget(paths.length));
    expect(await auditAll(page, paths, 'signed out')).toEqual([]);
  });

  test('checkout variants', async ({ page, isMobile }) => {
    const paths = pagesFor(isMobile, false)
      .filter((p) => CHECKOUT_VARIANTS[p.path])
      .map((p) => p.path);
    test.setTimeout(budget(paths.length));
    expect(await auditAll(page, paths, 'signed out')).toEqual([]);
  });

  /** Every signed-in page as this user (the worker's free user or paying customer, users.ts). */
  async function auditSignedIn(
    browser: Browser,
    info: TestInfo,
    isMobile: boolean,
    storageState: Storage,
    who: string,
  ) {
    const context = await browser.newContext({ ...info.project.use, storageState });
    const page = await context.newPage();
    expect(
      await auditAll(
        page,
        pagesFor(isMobile, true).map((p) => p.path),
        who,
      ),
    ).toEqual([]);
    await context.close();
  }

  test('every signed-in page, free user', async ({ browser, isMobile, freeUser }, info) => {
    test.setTimeout(budget(pagesFor(isMobile, true).length));
    await auditSignedIn(browser, info, isMobile, freeUser, 'free');
  });

  test('every signed-in page, paying user', async ({ browser, isMobile, payingCustomer }, info) => {
    test.setTimeout(budget(pagesFor(isMobile, true).length));
    await auditSignedIn(browser, info, isMobile, payingCustomer.storage, 'paying');
  });

  test('open: user menu, drawer (phone), upgrade dialog', async ({
    browser,
    isMobile,
    freeUser: storageState,
  }, info) => {
    test.setTimeout(budget(3));
    const found: string[] = [];

    const context = await browser.newContext({ ...info.project.use, storageState });
    const page = await context.newPage();
    await page.goto('/dashboard');
    await settled(page);
    await page.getByRole('button', { name: /Account menu/ }).click();
    await expect(page.getByRole('menu')).toBeVisible();
    found.push(...(await violations(page, 'user menu open')));
    await page.keyboard.press('Escape');
    if (isMobile) {
      await page.getByRole('button', { name: 'Open menu' }).click();
      await expect(page.getByRole('button', { name: 'Close menu' })).toHaveAttribute('aria-expanded', 'true');
      found.push(...(await violations(page, 'drawer open')));
      await page.keyboard.press('Escape');
    }
    await page.getByRole('switch', { name: 'Ad Blocker' }).click({ force: true });
    await expect(page.getByRole('dialog')).toBeVisible();
    found.push(...(await violations(page, 'upgrade dialog open')));
    await context.close();
    expect(found).toEqual([]);
  });

  // Russian and Chinese: longer words and other scripts on a few representative pages (the
  // phone runs the dark pages only, to keep the spec within its time budget).
  test('other languages', async ({ browser, isMobile, freeUser: storageState }, info) => {
    test.skip(isMobile, 'the desktop audits the languages; the phone the dark pages');
    test.setTimeout(budget(12));
    const found: string[] = [];
    for (const lang of ['ru', 'zh']) {
      const ctx = await browser.newContext({ ...info.project.use, storageState });
      await ctx.addInitScript((l) => localStorage.setItem('i18nLang', l), lang);
      const p = await ctx.newPage();
      found.push(...(await auditAll(p, ['/dashboard', '/server-locations', '/plans', '/profile'], lang)));
      await ctx.close();
      const guest = await browser.newContext({ ...info.project.use });
      await guest.addInitScript((l) => localStorage.setItem('i18nLang', l), lang);
      const g = await guest.newPage();
      found.push(...(await auditAll(g, ['/sign-up', '/checkout'], `${lang} signed out`)));
      await guest.close();
    }
    expect(found).toEqual([]);
  });

  test('dark scheme', async ({ browser, isMobile, freeUser: storageState }, info) => {
    test.setTimeout(budget(10));
    const found: string[] = [];
    // Dark: the system's setting, no stored choice.
    const dark = await browser.newContext({ ...info.project.use, storageState, colorScheme: 'dark' });
    const d = await dark.newPage();
    const darkPages = isMobile
      ? ['/dashboard', '/server-locations', '/profile']
      : ['/dashboard', '/server-locations', '/setup/wg', '/setup/socks5-proxy', '/plans', '/profile'];
    found.push(...(await auditAll(d, darkPages, 'dark')));
    await dark.close();
    const darkGuest = await browser.newContext({ ...info.project.use, colorScheme: 'dark' });
    const dg = await darkGuest.newPage();
    found.push(
      ...(await auditAll(
        dg,
        isMobile ? ['/sign-in', '/checkout'] : ['/sign-in', '/sign-up', '/checkout', '/ios-download'],
        'dark signed out',
      )),
    );
    await darkGuest.close();

    expect(found).toEqual([]);
  });
});
