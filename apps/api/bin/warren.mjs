#!/usr/bin/env node
// Operator CLI (`npx warren …`): runs the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/index.ts');
