import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { WgKind } from '@warren/contract';
import type { DesiredPeers } from '../state.js';
import { detectWgKind } from './capacity.js';
import { type Dump, parseDump } from './dump.js';
import { interfaceLines, renderConfig } from './render.js';

/**
 * The `wg` tool, always through execFile with an argument array (never a shell). Output is capped
 * generously for 100k-peer dumps.
 */
export class WgError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

export interface WgRunner {
  (args: string[]): Promise<string>;
}

export function execWg(bin = 'wg', timeoutMs = 60_000): WgRunner {
  return (args) =>
    new Promise((resolve, reject) => {
      execFile(
        bin,
        args,
        { maxBuffer: 256 * 1024 * 1024, timeout: timeoutMs, env: { ...process.env, WG_HIDE_KEYS: 'always' } },
        (err, stdout, stderr) => {
          // A signal is named: wireguard-go closes its socket on a refused peer and `wg`, still writing, dies of SIGPIPE with nothing on stderr.
          const signal = (err as { signal?: string } | null)?.signal;
          if (err)
            reject(
              new WgError(
                `wg ${args.slice(0, 2).join(' ')} failed: ${(stderr || err.message).trim().slice(0, 500)}${signal ? ` (killed by ${signal})` : ''}`,
                String(stderr),
              ),
            );
          else resolve(stdout);
        },
      );
    });
}

export class Wg {
  constructor(
    readonly iface: string,
    private readonly run: WgRunner,
    private readonly stateDir: string,
  ) {}

  private ifaceLines?: string[];

  /** Kernel or userspace (wireguard-go), and the peers the interface can hold (wg/capacity.ts). */
  limits(): Promise<{ kind: WgKind; maxPeers: number }> {
    return detectWgKind(this.iface);
  }
  private seen?: string;

  async dump(): Promise<Dump> {
    const d = parseDump(await this.run(['show', this.iface, 'dump']));
    const now = `${d.iface.publicKey}:${d.iface.listenPort}`;
    if (this.seen !== undefined && this.seen !== now) this.forget();
    this.seen = now;
    return d;
  }

  /** Drops the remembered interface settings; the next syncconf reads them again. */
  forget(): void {
    this.ifaceLines = undefined;
  }

  async set(args: string[]): Promise<void> {
    try {
      await this.run(args);
    } catch (err) {
      this.forget();
      throw err;
    }
  }

  /**
   * Writes the full config (the interface's own settings + the desired peers) atomically (temp +
   * rename, mode 600 in a 700 directory: it holds the interface key), then lets `wg syncconf`
   * converge the interface on it. Live sessions of unchanged peers are kept.
   */
  async syncconf(peers: DesiredPeers): Promise<void> {
    // The interface's own settings are read once and kept until forget() (a key or port change seen
    // in a dump, or a failed wg call): a showconf of 10k peers costs as much as the syncconf itself.
    this.ifaceLines ??= interfaceLines(await this.run(['showconf', this.iface]));
    const text = renderConfig(this.ifaceLines, peers);
    await fs.mkdir(this.stateDir, { recursive: true, mode: 0o700 });
    const file = path.join(this.stateDir, `${this.iface}.peers.conf`);
    const tmp = `${file}.${process.pid}.tmp`;
    await fs.writeFile(tmp, text, { mode: 0o600 });
    await fs.rename(tmp, file);
    try {
      await this.run(['syncconf', this.iface, file]);
    } catch (err) {
      this.forget();
      throw err;
    }
  }
}
