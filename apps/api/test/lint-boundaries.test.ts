// The boundaries in eslint.config.js hold however an import is written: each fixture below is
// linted by the repository's own ESLint config as if it were a file at `at` (ESLint's Node API,
// lintText with that path), and imports resolve against the real tree. A boundary that only
// matched the import's spelling would let one of these through.
import path from 'node:path';
import { ESLint } from 'eslint';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');

interface Fixture {
  at: string;
  code: string;
}

let eslint: ESLint;
let withAlias: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: root });
  // The same config with a `@/` alias for apps/web/src (bulletproof-react's), resolved through a tsconfig's paths.
  withAlias = new ESLint({
    cwd: root,
    overrideConfig: {
      settings: {
        'import-x/resolver-next': [
          createTypeScriptImportResolver({
            project: path.join(import.meta.dirname, 'lint-fixtures/alias.tsconfig.json'),
          }),
        ],
      },
    },
  });
});

async function problems({ at, code }: Fixture, linter = eslint): Promise<string[]> {
  const [result] = await linter.lintText(code, { filePath: path.join(root, at) });
  const messages = result!.messages;
  const fatal = messages.find((m) => m.fatal);
  if (fatal) throw new Error(`${at}: ${fatal.message}`);
  return messages
    .map((m) => m.ruleId ?? 'none')
    .filter((id) => id.startsWith('import-x/') || id.startsWith('react-hooks/'));
}

/** One import of another feature's call, written every way an import can be written. */
const signInPage = 'apps/web/src/features/auth/routes/Fixture.tsx';
const crossFeature: [string, string][] = [
  [
    'a relative path (the issue)',
    "import { useCheckoutLogin } from '../../checkout/api/login';\nexport const x = useCheckoutLogin;",
  ],
  [
    'through features/ again',
    "import { useCheckoutLogin } from '../../../features/checkout/api/login';\nexport const x = useCheckoutLogin;",
  ],
  [
    'with . and .. inside',
    "import { useCheckoutLogin } from './../../checkout/./api/../api/login';\nexport const x = useCheckoutLogin;",
  ],
  [
    'with an extension',
    "import { useCheckoutLogin } from '../../checkout/api/login.ts';\nexport const x = useCheckoutLogin;",
  ],
  [
    'through the workspace package name',
    "import { useCheckoutLogin } from '@warren/web/src/features/checkout/api/login';\nexport const x = useCheckoutLogin;",
  ],
  [
    'a type-only import',
    "import type { useCheckoutLogin } from '../../checkout/api/login';\nexport type X = typeof useCheckoutLogin;",
  ],
  ['a re-export', "export { useCheckoutLogin } from '../../checkout/api/login';"],
  ['export *', "export * from '../../checkout/api/login';"],
  ['a dynamic import()', "export const load = () => import('../../checkout/api/login');"],
  ['a side-effect import', "import '../../checkout/api/login';"],
];

describe('web: features never import each other', () => {
  it.each(crossFeature)('fails on %s', async (_how, code) => {
    expect(await problems({ at: signInPage, code })).toEqual(['import-x/no-restricted-paths']);
  });

  it('fails on an alias (@/features/…) once the app has one', async () => {
    const fixture = {
      at: signInPage,
      code: "import { useCheckoutLogin } from '@/features/checkout/api/login';\nexport const x = useCheckoutLogin;",
    };
    expect(await problems(fixture, withAlias)).toEqual(['import-x/no-restricted-paths']);
    // The same alias to lib/ is fine: the rule reads where an import lands, not how it is spelled.
    expect(
      await problems(
        { at: signInPage, code: "import { login } from '@/lib/account-api';\nexport const x = login;" },
        withAlias,
      ),
    ).toEqual([]);
  });

  it('lets a feature use its own files, lib/ and components/', async () => {
    const code = [
      "import { useLogin } from '../api/login';",
      "import { login } from '../../../lib/account-api';",
      "import { CopyField } from '../../../components/CopyField';",
      'export const x = [useLogin, login, CopyField];',
    ].join('\n');
    expect(await problems({ at: signInPage, code })).toEqual([]);
  });

  it('keeps the layers: lib imports no component or feature, components no feature, features not app/', async () => {
    expect(
      await problems({
        at: 'apps/web/src/lib/fixture.ts',
        code: "export { CopyField } from '../components/CopyField';",
      }),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await problems({
        at: 'apps/web/src/lib/billing/fixture.ts',
        code: "export { useLogin } from '../../features/auth/api/login';",
      }),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await problems({
        at: 'apps/web/src/components/Fixture.tsx',
        code: "export { useLogin } from '../features/auth/api/login';",
      }),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await problems({
        at: 'apps/web/src/features/plans/Fixture.tsx',
        code: "export { router } from '../../app/router';",
      }),
    ).toEqual(['import-x/no-restricted-paths']);
    // app/ composes features.
    expect(
      await problems({
        at: 'apps/web/src/app/fixture.ts',
        code: "export { useLogin } from '../features/auth/api/login';",
      }),
    ).toEqual([]);
  });
});

describe('API: modules are reached through their index.ts', () => {
  it.each([
    ['a plugin', 'apps/api/src/plugins/fixture.ts', "export type { UsersService } from '../modules/users/service.js';"],
    [
      'a plugin, with .. inside',
      'apps/api/src/plugins/fixture.ts',
      "export type { UsersService } from '../modules/billing/../users/service.js';",
    ],
    [
      'a payment provider',
      'apps/api/src/payments/fixture.ts',
      "export { sandboxRepository } from '../modules/billing/repository.js';",
    ],
    [
      'the composition',
      'apps/api/src/composition-fixture.ts',
      "export { logMail } from './modules/staff/repository.js';",
    ],
    ['config.ts', 'apps/api/src/config-fixture.ts', "export { parsePools } from './modules/wireguard/addresses.js';"],
    [
      'another module',
      'apps/api/src/modules/rewards/fixture.ts',
      "export { billingRepository } from '../billing/repository.js';",
    ],
    [
      'the workspace package name',
      'apps/api/src/modules/rewards/fixture.ts',
      "export { billingRepository } from '@warren/api/src/modules/billing/repository.js';",
    ],
    [
      'a dynamic import()',
      'apps/api/src/cli/fixture.ts',
      "export const load = () => import('../modules/staff/service.js');",
    ],
  ])('fails on a reach-in from %s', async (_who, at, code) => {
    expect(await problems({ at, code })).toEqual(['import-x/no-restricted-paths']);
  });

  it("passes through index.ts, and inside an area's folders", async () => {
    expect(
      await problems({
        at: 'apps/api/src/payments/fixture.ts',
        code: "export { sandboxRepository } from '../modules/billing/index.js';",
      }),
    ).toEqual([]);
    expect(
      await problems({
        at: 'apps/api/src/modules/profile/fixture.ts',
        code: "export { usersRepository } from '../users/repository.js';",
      }),
    ).toEqual([]);
    expect(
      await problems({
        at: 'apps/api/src/modules/nodes/fixture.ts',
        code: "export { parsePools } from '../wireguard/addresses.js';",
      }),
    ).toEqual([]);
  });

  it('keeps the layers: lib/ and db/ import no module, plugin or provider; providers and plugins not each other', async () => {
    expect(
      await problems({
        at: 'apps/api/src/lib/fixture.ts',
        code: "export { usersService } from '../modules/users/index.js';",
      }),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await problems({
        at: 'apps/api/src/db/fixture.ts',
        code: "export { buildProviders } from '../payments/index.js';",
      }),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await problems({ at: 'apps/api/src/payments/fixture.ts', code: "export * from '../plugins/auth.js';" }),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await problems({ at: 'apps/api/src/plugins/fixture.ts', code: "export * from '../payments/index.js';" }),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await problems({
        at: 'apps/api/src/modules/users/fixture.ts',
        code: "export { buildServices } from '../../composition.js';",
      }),
    ).toEqual(['import-x/no-restricted-paths']);
  });
});

describe('agent and workspaces', () => {
  it('a renderer imports nothing that runs programs; the installer not the daemon', async () => {
    expect(await problems({ at: 'apps/agent/src/wg/render.ts', code: "export { execWg } from './wg.js';" })).toContain(
      'import-x/no-restricted-paths',
    );
    expect(await problems({ at: 'apps/agent/src/setup/fixture.ts', code: "export * from '../agent.js';" })).toEqual([
      'import-x/no-restricted-paths',
    ]);
  });

  it('the apps share only the contract', async () => {
    expect(
      await problems({
        at: 'apps/web/src/lib/fixture.ts',
        code: "export type { Config } from '../../../api/src/config.js';",
      }),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await problems({
        at: 'apps/agent/src/fixture.ts',
        code: "export type { Config } from '@warren/api/src/config.js';",
      }),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await problems({
        at: 'packages/contract/src/fixture.ts',
        code: "export * from '../../../apps/web/src/lib/plan';",
      }),
    ).toEqual(['import-x/no-restricted-paths']);
  });
});

describe('cycles and hooks', () => {
  it('fails on a runtime import cycle, not on a type-only one', async () => {
    // wg/wg.ts imports wg/dump.ts: dump.ts importing wg.ts back closes a cycle.
    expect(
      await problems({
        at: 'apps/agent/src/wg/dump.ts',
        code: "import { execWg } from './wg.js';\nexport const x = execWg;",
      }),
    ).toContain('import-x/no-cycle');
    expect(
      await problems({
        at: 'apps/agent/src/wg/dump.ts',
        code: "import type { Wg } from './wg.js';\nexport type X = Wg;",
      }),
    ).not.toContain('import-x/no-cycle');
  });

  it('fails on a hook called conditionally and on a missing effect dependency', async () => {
    const code = [
      "import { useEffect, useState } from 'react';",
      'export function Fixture({ on, id }: { on: boolean; id: string }) {',
      '  if (on) useState(0);',
      '  useEffect(() => console.log(id), []);',
      '  return null;',
      '}',
    ].join('\n');
    expect(await problems({ at: 'apps/web/src/components/Fixture.tsx', code })).toEqual([
      'react-hooks/rules-of-hooks',
      'react-hooks/exhaustive-deps',
    ]);
  });
});
