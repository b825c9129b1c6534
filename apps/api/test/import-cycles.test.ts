// No import cycles, type-only ones included: eslint's import-x/no-cycle skips `import type`
// (erased at run time), but a cycle of types still ties two modules into one to read and change.
// Scans every non-test source file of the four workspaces and fails naming each cycle's files.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const WORKSPACES = ['apps/api/src', 'apps/web/src', 'apps/agent/src', 'packages/contract/src'];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(p);
    return /\.tsx?$/.test(e.name) && !/\.(test|spec)\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** File → the files it imports by a relative path (static, `import type`, re-exports and dynamic imports). */
export function importGraph(files: string[], read: (file: string) => string): Map<string, string[]> {
  const known = new Set(files);
  const resolve = (from: string, spec: string) => {
    if (!spec.startsWith('.')) return undefined;
    const base = path.resolve(path.dirname(from), spec);
    const stem = base.replace(/\.js$/, '');
    return [base, `${stem}.ts`, `${stem}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')].find((c) =>
      known.has(c),
    );
  };
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = read(file);
    const specs = [
      ...[...text.matchAll(/(?:^|[\s;])(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/g)].map((m) => m[1]!),
      ...[...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!),
    ];
    graph.set(file, [...new Set(specs.map((s) => resolve(file, s)).filter((f): f is string => !!f))]);
  }
  return graph;
}

/** Groups of files that import each other, directly or around a loop (Tarjan's strongly connected components). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('import cycles', () => {
  it('finds a cycle made of type-only imports (so a scan that finds nothing cannot pass)', () => {
    const files = ['/x/a.ts', '/x/b.ts', '/x/c.ts'];
    const text: Record<string, string> = {
      '/x/a.ts': "import type { B } from './b.js';",
      '/x/b.ts': "export { a } from './a.js';",
      '/x/c.ts': "import { a } from './a.js';",
    };
    expect(cycles(importGraph(files, (f) => text[f]!))).toEqual([['/x/a.ts', '/x/b.ts']]);
  });

  it('none in the four workspaces, type-only imports counted', () => {
    const files = WORKSPACES.flatMap((w) => sources(path.join(root, w)));
    expect(files.length).toBeGreaterThan(200);
    const found = cycles(importGraph(files, (f) => fs.readFileSync(f, 'utf8'))).map((g) =>
      g.map((f) => path.relative(root, f)),
    );
    expect(found).toEqual([]);
  });
});
