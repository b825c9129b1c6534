#!/usr/bin/env node
// The node agent from a checkout of the repository: runs the built single-file agent
// (dist/bin/warren-agent.mjs, the file a VPN server gets), built first when it is missing or
// older than its sources. A VPN server runs that file directly with only Node installed.
import { ensureBuilt } from '../../../scripts/build-node.mjs';

await ensureBuilt('agent');
await import('../dist/bin/warren-agent.mjs');
