// Mantine's stylesheets load per component (see mantine-base.css). These checks keep that
// honest: a component used anywhere has its stylesheet imported where it is used, or sits in
// the base file, and the base file keeps dependencies ahead of their dependants.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const srcDir = path.resolve(import.meta.dirname, '..');
const stylesDir = path.dirname(createRequire(import.meta.url).resolve('@mantine/core/styles/Button.css'));
const baseCss = fs.readFileSync(path.join(srcDir, 'app/mantine-base.css'), 'utf8');
const baseOrder = [...baseCss.matchAll(/@import '@mantine\/core\/styles\/([\w-]+)\.layer\.css'/g)].map((m) => m[1]!);
const base = new Set(baseOrder);

/** Components other packages render for us: the importing module brings their stylesheet. */
const INDIRECT: Record<string, Record<string, string[]>> = {
  '@mantine/notifications': { Notifications: ['Notification'] },
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'test' ? [] : sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

function namedImports(code: string, from: string): string[] {
  const re = new RegExp(`import\\s*\\{([^}]*)\\}\\s*from\\s*'${from.replace('/', '\\/')}'`, 'g');
  return [...code.matchAll(re)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s && !s.startsWith('type '))
      .map((s) => s.split(/\s+as\s+/)[0]!.trim()),
  );
}

const hasStylesheet = (name: string) => fs.existsSync(path.join(stylesDir, `${name}.css`));

describe('Mantine stylesheets per component', () => {
  const files = sourceFiles(srcDir);

  it('every component with a stylesheet gets it where it is used (or from the base file)', () => {
    const missing: string[] = [];
    for (const file of files) {
      const code = fs.readFileSync(file, 'utf8');
      const needed = namedImports(code, '@mantine/core').filter(hasStylesheet);
      for (const [pkg, map] of Object.entries(INDIRECT))
        for (const n of namedImports(code, pkg)) needed.push(...(map[n] ?? []));
      for (const name of needed) {
        if (base.has(name)) continue;
        if (!code.includes(`import '@mantine/core/styles/${name}.layer.css';`))
          missing.push(`${path.relative(srcDir, file)}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('no module imports the stylesheet of a component it does not use', () => {
    const stale: string[] = [];
    for (const file of files) {
      const code = fs.readFileSync(file, 'utf8');
      const used = new Set(namedImports(code, '@mantine/core'));
      for (const [pkg, map] of Object.entries(INDIRECT))
        for (const n of namedImports(code, pkg)) for (const c of map[n] ?? []) used.add(c);
      for (const m of code.matchAll(/import '@mantine\/core\/styles\/([\w-]+)\.layer\.css';/g)) {
        if (!used.has(m[1]!)) stale.push(`${path.relative(srcDir, file)}: ${m[1]}`);
      }
    }
    expect(stale).toEqual([]);
  });

  it('nothing loads the whole stylesheet or the unlayered files', () => {
    const offenders = files.filter((f) =>
      /@mantine\/[\w-]+\/styles(\.css|\/[\w-]+(?<!\.layer)\.css)'/.test(fs.readFileSync(f, 'utf8')),
    );
    expect(offenders).toEqual([]);
    expect(baseCss).not.toMatch(/styles\.css'/);
  });

  it('the base file lists every file it names, the global layer first, and dependencies before dependants', () => {
    for (const name of baseOrder) expect(hasStylesheet(name), name).toBe(true);
    expect(baseOrder.slice(0, 3)).toEqual(['baseline', 'default-css-variables', 'global']);
    const before = (a: string, b: string) =>
      expect(baseOrder.indexOf(a), `${a} before ${b}`).toBeLessThan(baseOrder.indexOf(b));
    for (const dependant of ['Button', 'ActionIcon', 'CloseButton']) before('UnstyledButton', dependant);
    before('Input', 'Combobox');
    before('Popover', 'Combobox');
    before('Overlay', 'ModalBase');
    before('Paper', 'Card');
  });
});
