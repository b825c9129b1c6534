#!/usr/bin/env node
// Operator CLI (`npx warren …`): runs the compiled CLI (dist/cli.js), built first when it is
// missing or older than its sources, as `npm start` does for the server.
import { ensureBuilt } from '../../../scripts/build-node.mjs';

await ensureBuilt('api');
await import('../dist/cli.js');
