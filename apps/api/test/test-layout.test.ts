// "A module's tests are found by its name": every API module (apps/api/src/modules/<name>) and
// every web feature (apps/web/src/features/<name>) has a test a newcomer finds by that name,
// beside the code or named after it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');

/**
 * Folders of the VPN area while it is being renamed (setup, locations, wireguard, openvpn-socks5,
 * nodes) that have no test by their name yet: empty now, every one has one.
 * TODO(vpn-rename): a VPN folder added without a test goes here, with its tests to come; the
 * check below fails once an entry has a test or no folder.
 */
const PENDING_VPN_RENAME: Record<'api' | 'web', string[]> = {
  api: [],
  web: [],
};

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : filesUnder(p, keep);
    return keep(e.name) ? [p] : [];
  });
}

const subfolders = (dir: string) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

const isTest = (name: string) => /\.(test|spec)\.tsx?$/.test(name);
const stem = (file: string) => path.basename(file).replace(/\.(test|spec)\.tsx?$/, '');

/** A test file is named after a module when the module's name is one of its dash-separated parts: users.test.ts, billing-grant.test.ts, affiliate-rewards.spec.ts. */
export function namedAfter(file: string, name: string): boolean {
  return `-${stem(file)}-`.includes(`-${name}-`);
}

/** The tests of one module: beside it (in its folder), or named after it (or in a folder named after it) among the shared test folders. */
function testsOf(name: string, moduleDir: string, shared: string[]): string[] {
  const beside = filesUnder(moduleDir, isTest);
  const named = shared.flatMap((dir) =>
    filesUnder(dir, isTest).filter((f) => namedAfter(f, name) || path.relative(dir, f).split(path.sep)[0] === name),
  );
  return [...beside, ...named];
}

const AREAS = {
  api: { modules: path.join(root, 'apps/api/src/modules'), shared: [path.join(root, 'apps/api/test')] },
  // app/ holds the tests that need the whole router (a feature may not import app/): ios-titles.test.tsx.
  web: {
    modules: path.join(root, 'apps/web/src/features'),
    shared: [path.join(root, 'apps/web/src/app'), path.join(root, 'e2e/tests')],
  },
} as const;

describe('tests are found by the name of what they test', () => {
  it('names a test after a module by its dash-separated parts', () => {
    expect(namedAfter('/t/users.test.ts', 'users')).toBe(true);
    expect(namedAfter('/t/billing-grant.test.ts', 'billing')).toBe(true);
    expect(namedAfter('/t/affiliate-rewards.spec.ts', 'rewards')).toBe(true);
    expect(namedAfter('/t/openvpn-socks5.test.ts', 'openvpn-socks5')).toBe(true);
    expect(namedAfter('/t/account.test.ts', 'accounts')).toBe(false);
    expect(namedAfter('/t/system-health.test.ts', 'health')).toBe(true);
    expect(namedAfter('/t/checkouts.test.ts', 'checkout')).toBe(false);
  });

  for (const [area, { modules, shared }] of Object.entries(AREAS) as [
    keyof typeof AREAS,
    (typeof AREAS)[keyof typeof AREAS],
  ][]) {
    it(`every ${area} ${area === 'api' ? 'module' : 'feature'} has a test findable by its name`, () => {
      const pending = new Set(PENDING_VPN_RENAME[area]);
      const missing = subfolders(modules).filter(
        (name) => !pending.has(name) && testsOf(name, path.join(modules, name), [...shared]).length === 0,
      );
      expect(missing, `add a test beside the code or name one after the ${area} module`).toEqual([]);
    });

    it(`the ${area} VPN-rename exceptions are still needed`, () => {
      const names = new Set(subfolders(modules));
      const stale = PENDING_VPN_RENAME[area].filter(
        (name) => !names.has(name) || testsOf(name, path.join(modules, name), [...shared]).length > 0,
      );
      expect(stale, 'remove these from PENDING_VPN_RENAME: they have a test now, or no folder').toEqual([]);
    });
  }
});
