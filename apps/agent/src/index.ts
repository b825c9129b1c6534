// What other workspaces (the API's benchmarks) may use of the agent: its parts, not its files.
export { Agent } from './agent.js';
export { ApiClient } from './api-client.js';
export { Wg } from './wg/wg.js';
export { interfaceLines, renderConfig } from './wg/render.js';
export { nextDesired } from './state.js';
export { createAgentMetrics, startMetricsServer } from './metrics.js';
