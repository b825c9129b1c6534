import fs from 'node:fs';
import path from 'node:path';
import { SETUP_HELP, SetupOptionsError, parseSetupArgs } from './options.js';
import {
  type Action,
  type Observed,
  PlanError,
  aptLine,
  missingTools,
  plan,
  startCommand,
  stealthStartCommand,
} from './plan.js';
import { observe, observeTools, privileged, runAction } from './system.js';

/** The machine, as setup sees and changes it (system.ts; tests pass fakes). */
export interface SetupSystem {
  privileged: () => boolean;
  observeTools: typeof observeTools;
  observe: (o: Parameters<typeof observe>[0], base: Parameters<typeof observe>[1]) => Promise<Observed>;
  runAction: (a: Action) => Promise<void>;
}
const realSystem: SetupSystem = { privileged, observeTools, observe, runAction };

/**
 * One setup at a time per configuration directory: two at once would race on the interface and
 * the files. The lock names its pid; a lock whose process is gone (a crash) is taken over.
 */
export function takeLock(file: string): (() => void) | { heldBy: number } {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(fs.readFileSync(file, 'utf8'));
      let alive = false;
      try {
        alive = Number.isInteger(pid) && pid > 0 && process.kill(pid, 0);
      } catch (e) {
        alive = (e as NodeJS.ErrnoException).code === 'EPERM';
      }
      if (alive) return { heldBy: pid };
      fs.rmSync(file, { force: true });
    }
  }
  return { heldBy: 0 };
}

/**
 * `warren-agent setup`: observe, plan, apply, one line per step. Exit codes follow sysexits:
 * 64 usage, 69 unavailable (tools missing), 75 another setup running, 77 no permission, 1 a step failed.
 */
export async function runSetup(
  argv: string[],
  agentCommand: string[],
  out: (line: string) => void = (l) => console.log(l),
  err: (line: string) => void = (l) => console.error(l),
  system: SetupSystem = realSystem,
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
  if (!system.privileged()) {
    err(
      'warren-agent setup needs root (or CAP_NET_ADMIN): it creates a network interface, turns on forwarding and loads nftables rules. Run it with sudo.',
    );
    return 77;
  }
  const base = system.observeTools();
  const missing = missingTools(o, base);
  if (missing.length) {
    err(
      `Missing tools: ${missing.join(', ')}${missing.includes('wireguard-go') ? ' (no WireGuard kernel module here)' : ''}. Install them with:\n  ${aptLine(missing)}`,
    );
    return 69;
  }
  let unlock: (() => void) | undefined;
  if (!o.dryRun) {
    fs.mkdirSync(o.etcDir, { recursive: true, mode: 0o700 });
    const lock = takeLock(path.join(o.etcDir, '.setup.lock'));
    if (typeof lock !== 'function') {
      err(`another warren-agent setup (pid ${lock.heldBy}) is running with ${o.etcDir}; try again when it is done`);
      return 75;
    }
    unlock = lock;
  }
  try {
    let steps;
    try {
      steps = plan(o, await system.observe(o, base), agentCommand);
    } catch (e) {
      if (!(e instanceof PlanError)) throw e;
      err(e.message);
      return 1;
    }
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
        for (const a of s.actions) await system.runAction(a);
      } catch (e) {
        err(`${label}  FAILED: ${s.detail}: ${(e as Error).message}`);
        return 1;
      }
      out(`${label}  changed: ${s.detail}`);
    }
    if (!changes.length) out('nothing to change');
    else if (o.dryRun) out(`dry run: ${changes.length} step(s) would change; nothing was changed`);
    if (!(base.systemd && o.start)) {
      // The core first: the agent gives it its users once it answers.
      if (o.stealth) out(`start the stealth core with:\n  ${stealthStartCommand(o, base.tools.v2ray)}`);
      out(
        `${base.systemd ? 'not started (--no-start)' : 'systemd is not running here'}; start the agent with:\n  ${startCommand(o, agentCommand)}`,
      );
      if (changes.some((s) => s.name === 'agent settings') && !o.dryRun)
        out('(an agent already running reads its settings only at start: restart it)');
    }
    return 0;
  } finally {
    unlock?.();
  }
}
