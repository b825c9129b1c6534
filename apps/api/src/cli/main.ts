import { ConfigError } from '../config.js';
import { usePrivateUmask } from '../lib/data-dir.js';
import { runCli } from './index.js';

// The `npx warren` entry (bin/warren.mjs runs this, or its build in dist/cli.js).
// Which path a command took (the running server, or the database directly) goes to stderr.
// What the CLI writes (an embedded database opened directly) is its user's alone, as the server's (lib/data-dir.ts).
usePrivateUmask();
runCli(
  process.argv.slice(2),
  (l) => console.log(l),
  (l) => console.error(l),
).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof ConfigError ? err.message : `Error: ${(err as Error).message}`);
    process.exit(1);
  },
);
