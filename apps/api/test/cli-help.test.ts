import { expect, it } from 'vitest';
import { runCli } from '../src/cli/index.js';

/** `--help` (or -h) anywhere prints usage and exits 0, for every group and command; nothing opens a database or a server. */
async function cli(...args: string[]) {
  const lines: string[] = [];
  const notes: string[] = [];
  const code = await runCli(
    args,
    (l) => lines.push(l),
    (l) => notes.push(l),
  );
  return { code, out: lines.join('\n'), notes };
}

it('answers --help with usage and exit 0 on every command of every group', async () => {
  let checked = 0;
  const top = await cli('--help');
  expect(top.code).toBe(0);
  const groups = [...top.out.matchAll(/^ {2}([a-z-]+)$/gm)].map((m) => m[1]!);
  expect(groups).toEqual(expect.arrayContaining(['billing', 'jobs', 'mail', 'vpn', 'staff']));
  for (const g of groups) {
    const listed = await cli(g, '-h');
    expect(listed.code).toBe(0);
    const commands = [...listed.out.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThan(0);
    checked += commands.length;
    for (const c of commands) {
      const help = await cli(g, c, '--help');
      expect(help.code, `${g} ${c}`).toBe(0);
      expect(help.out).toContain(`npx warren ${g} ${c}`);
      expect(help.notes).toEqual([]); // answered by the CLI alone
    }
  }
  expect(checked).toBeGreaterThan(15);
  // Unknown words still say what exists, with the usage error code.
  expect((await cli('nope')).code).toBe(64);
  expect((await cli('vpn', 'nope')).code).toBe(64);
  expect((await cli('vpn', 'nope', '--help')).code).toBe(0);
});
