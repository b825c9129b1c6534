import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

/**
 * The real server with a fault injected through the composition's test seam (crash.test.ts):
 * it SIGKILLs itself after a webhook's event is recorded and the provider confirmed the capture,
 * before the payment is applied. Production (server.ts) passes no test hooks.
 */
const config = loadConfig();
const app = await buildApp(config, {
  testHooks: { billing: { afterCapture: () => process.kill(process.pid, 'SIGKILL') } },
});
await app.listen({ host: config.host, port: config.port });
