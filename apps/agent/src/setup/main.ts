import { SETUP_HELP, SetupOptionsError, parseSetupArgs } from './options.js';
import { aptLine, missingTools, plan, startCommand } from './plan.js';
import { observe, observeTools, privileged, runAction } from './system.js';

/**
 * `warren-agent setup`: observe, plan, apply, one line per step. Exit codes follow sysexits:
 * 64 usage, 69 unavailable (tools missing), 77 no permission, 1 a step failed.
 */
export async function runSetup(
  argv: string[],
  agentCommand: string[],
  out: (line: string) => void = (l) => console.log(l),
  err: (line: string) => void = (l) => console.error(l),
): Promise<number> {
  let o;
  try {
    o = parseSetupArgs(argv);
  } catch (e) {
    err(e instanceof SetupOptionsError ? e.message : String(e));
    err(`\n${SETUP_HELP}`);
    return 64;
  }
  if (o === 'help') {
    out(SETUP_HELP);
    return 0;
  }
  if (!privileged()) {
    err('warren-agent setup needs root (or CAP_NET_ADMIN): it creates a network interface, turns on forwarding and loads nftables rules. Run it with sudo.');
    return 77;
  }
  const base = observeTools();
  const missing = missingTools(o, base);
  if (missing.length) {
    err(`Missing tools: ${missing.join(', ')}${missing.includes('wireguard-go') ? ' (no WireGuard kernel module here)' : ''}. Install them with:\n  ${aptLine(missing)}`);
    return 69;
  }
  const steps = plan(o, await observe(o, base), agentCommand);
  const changes = steps.filter((s) => s.status === 'change');
  const pad = Math.max(...steps.map((s) => s.name.length));
  for (const s of steps) {
    const label = s.name.padEnd(pad);
    if (s.status === 'ok') {
      out(`${label}  already so: ${s.detail}`);
      continue;
    }
    if (s.status === 'todo' || o.dryRun) {
      out(`${label}  ${s.status === 'todo' ? 'to do' : 'would change'}: ${s.detail}`);
      continue;
    }
    try {
      for (const a of s.actions) await runAction(a);
    } catch (e) {
      err(`${label}  FAILED: ${s.detail}: ${(e as Error).message}`);
      return 1;
    }
    out(`${label}  changed: ${s.detail}`);
  }
  if (!changes.length) out('nothing to change');
  else if (o.dryRun) out(`dry run: ${changes.length} step(s) would change; nothing was changed`);
  const systemdStarts = base.systemd && o.start;
  if (!systemdStarts) {
    out(`${base.systemd ? 'not started (--no-start)' : 'systemd is not running here'}; start the agent with:\n  ${startCommand(o, agentCommand)}`);
  }
  return 0;
}
