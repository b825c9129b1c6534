#!/usr/bin/env node
// Sums the JSON reports of every suite (Vitest and Playwright) into one closing line.
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
let passed = 0;
let failed = 0;
let skipped = 0;
const expected = ['unit.json', 'api-pg.json', 'e2e.json', 'tunnel.json'];
for (const name of expected) {
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) {
    console.log(`${name}: no report (the suite did not run)`);
    failed += 1;
    continue;
  }
  const r = JSON.parse(fs.readFileSync(file, 'utf8'));
  let p, f, s;
  if ('numPassedTests' in r) {
    p = r.numPassedTests;
    f = r.numFailedTests + (r.numFailedTestSuites && !r.numFailedTests ? r.numFailedTestSuites : 0);
    s = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  } else {
    p = (r.stats?.expected ?? 0) + (r.stats?.flaky ?? 0);
    f = r.stats?.unexpected ?? 0;
    s = r.stats?.skipped ?? 0;
    if (r.errors?.length) f += r.errors.length;
  }
  console.log(`${name}: ${p} passed, ${f} failed, ${s} skipped`);
  passed += p;
  failed += f;
  skipped += s;
}
const checks = path.join(dir, 'failed-checks');
if (fs.existsSync(checks)) {
  const failedChecks = fs.readFileSync(checks, 'utf8').split('\n').filter(Boolean);
  console.log(`checks that failed: ${failedChecks.join(', ')}`);
  failed += failedChecks.length;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed ? 1 : 0);
