import { defineConfig } from 'vitest/config';

// `npm run test:tunnel`: needs root, iproute2, wireguard-tools and wireguard-go (see README, Tests).
export default defineConfig({
  test: {
    name: 'tunnel',
    root: import.meta.dirname,
    include: ['*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
