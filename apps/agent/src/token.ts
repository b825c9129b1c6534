import fs from 'node:fs';

/**
 * The node token, re-read from its file when the API refuses it (issue 22): after
 * `npx warren vpn node-token` the operator writes the new token to the file and the running agent
 * picks it up at its next 401, without a restart. A token given in WARREN_NODE_TOKEN (no file)
 * cannot change.
 */
export class NodeToken {
  constructor(
    private current: string,
    private readonly file?: string,
  ) {}

  get value(): string {
    return this.current;
  }

  /** Reads the file again: true when it now holds another (non-empty) token, which becomes the current one. */
  reload(): boolean {
    if (!this.file) return false;
    let next: string;
    try {
      next = fs.readFileSync(this.file, 'utf8').trim();
    } catch {
      return false;
    }
    if (!next || next === this.current) return false;
    this.current = next;
    return true;
  }
}
