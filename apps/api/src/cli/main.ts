import { ConfigError } from '../config.js';
import { runCli } from './index.js';

// The `npx warren` entry (bin/warren.mjs runs this, or its build in dist/cli.js).
runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof ConfigError ? err.message : `Error: ${(err as Error).message}`);
    process.exit(1);
  },
);
