#!/usr/bin/env node
// Node agent (`warren-agent --help`): runs the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
