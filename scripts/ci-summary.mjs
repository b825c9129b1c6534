#!/usr/bin/env node
// Sums the JSON reports of every suite (Vitest and Playwright) into one closing line.
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];

/** Names of failed tests, so the last lines of a CI log say what broke. */
function failedTitles(report) {
  const titles = [];
  if (Array.isArray(report.testResults)) {
    for (const file of report.testResults) {
      const failedHere = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
      for (const a of failedHere) {
        const first = (a.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 200);
        titles.push(`${path.basename(file.name)} › ${a.fullName ?? a.title} — ${first}`);
      }
      if (!failedHere.length && file.status === 'failed') {
        titles.push(`${path.basename(file.name)} — ${(file.message ?? '').split('\n')[0].slice(0, 200)}`);
      }
    }
  } else {
    const walk = (suite, trail) => {
      for (const spec of suite.specs ?? []) {
        for (const t of spec.tests ?? []) {
          if (t.status === 'unexpected') {
            const err = t.results?.at(-1)?.error?.message ?? '';
            titles.push(
              `${[...trail, spec.title].join(' › ')} [${t.projectName}] — ${err.split('\n')[0].slice(0, 200)}`,
            );
          } else if (t.status === 'flaky') {
            // Passed on CI's one retry: counted as passed, but named, so a flaky test is seen and fixed.
            const err = t.results?.[0]?.error?.message ?? '';
            titles.push(
              `FLAKY (passed on retry) ${[...trail, spec.title].join(' › ')} [${t.projectName}] — ${err.split('\n')[0].slice(0, 200)}`,
            );
          }
        }
      }
      for (const child of suite.suites ?? []) walk(child, [...trail, child.title]);
    };
    for (const suite of report.suites ?? []) walk(suite, [suite.title]);
  }
  return titles;
}
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
  // Vitest exits non-zero on an unhandled error while its report shows every test passed: count it.
  const exitFile = file.replace(/\.json$/, '.exit');
  const exitCode = fs.existsSync(exitFile) ? fs.readFileSync(exitFile, 'utf8').trim() : '0';
  const silentFailure = f === 0 && exitCode !== '0';
  if (silentFailure) f = 1;
  console.log(`${name}: ${p} passed, ${f} failed, ${s} skipped`);
  if (silentFailure)
    console.log(
      `  failed: the suite exited ${exitCode} with no failed test (an unhandled error or a crash: see its log)`,
    );
  for (const title of failedTitles(r)) console.log(title.startsWith('FLAKY') ? `  ${title}` : `  failed: ${title}`);
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
