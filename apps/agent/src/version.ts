/** The agent's version, reported to the API (the operator console shows it per node). Kept equal to package.json's (version.test.ts). */
export const AGENT_VERSION = '0.1.0';
