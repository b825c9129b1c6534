import { expect, type BrowserContext, type Page } from '@playwright/test';
import { appPages } from './routes';
import { test } from './users';

/**
 * A clean console: every page a stranger lands on (read from the router: sign-in, sign-up, the
 * checkout variants, the iOS pages...) and the logged-in pages, opened fresh as a first visit
 * does, log no warning and no error. Chromium warns when a `<link rel=preload>` the server sent
 * is not the request the page then makes (another credentials mode, or never used); that is
 * also checked at its cause, without waiting for the warning's timer: every preloaded stylesheet
 * is applied and no file is fetched twice.
 */
const allPages = await appPages();

interface Watch {
  messages: string[];
}

function watch(page: Page): Watch {
  const w: Watch = { messages: [] };
  page.on('console', (m) => {
    if (m.type() === 'warning' || m.type() === 'error') w.messages.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => w.messages.push(`uncaught: ${e.message}`));
  return w;
}

/** What the preload hints promised and what the page did with them. */
async function preloadProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const applied = new Set([...document.styleSheets].map((s) => s.href).filter(Boolean));
    for (const link of document.querySelectorAll<HTMLLinkElement>('link[rel="preload"][as="style"]')) {
      if (!applied.has(link.href)) problems.push(`preloaded stylesheet not applied: ${link.href}`);
    }
    const counts = new Map<string, number>();
    for (const e of performance.getEntriesByType('resource')) {
      if (!new URL(e.name).pathname.startsWith('/assets/')) continue;
      counts.set(e.name, (counts.get(e.name) ?? 0) + 1);
    }
    for (const [url, n] of counts) if (n > 1) problems.push(`fetched ${n} times: ${url}`);
    return problems;
  });
}

/** Opens a path in a fresh page, lets the app settle, and returns everything wrong with the console and the hints. */
async function visit(context: BrowserContext, path: string, ready: (page: Page) => Promise<void>): Promise<string[]> {
  const page = await context.newPage();
  const w = watch(page);
  await page.goto(path);
  await ready(page);
  await page.waitForLoadState('networkidle');
  const problems = [...w.messages, ...(await preloadProblems(page))].map((m) => `${path}: ${m}`);
  await page.close();
  return problems;
}

const appStarted = async (page: Page) => {
  // The app has taken the page over (a server-rendered form is disabled until then).
  await expect(page.locator('#root h1, #root h2').first()).toBeVisible();
  await expect(page.locator('#root fieldset:disabled, #root [aria-busy="true"]')).toHaveCount(0);
};

test.describe('console', () => {
  test('signed-out pages: no warning, no error, every preload used', async ({ browser }) => {
    test.setTimeout(180_000);
    const problems: string[] = [];
    for (const p of allPages.filter((x) => !x.signedIn)) {
      const context = await browser.newContext();
      problems.push(...(await visit(context, p.path, appStarted)));
      await context.close();
    }
    expect(problems).toEqual([]);
  });

  test('the dashboard and the other logged-in pages: no warning, no error, every preload used', async ({
    browser,
    freeUser: storageState,
  }) => {
    test.setTimeout(180_000);
    const problems: string[] = [];
    for (const p of allPages.filter((x) => x.signedIn)) {
      // A fresh context each time: the page's files come with a first load, as the hints expect.
      const context = await browser.newContext({ storageState });
      problems.push(...(await visit(context, p.path, appStarted)));
      await context.close();
    }
    expect(problems).toEqual([]);
  });
});
