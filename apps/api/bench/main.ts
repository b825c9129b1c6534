import path from 'node:path';

/**
 * Runs a bench when its file is the one node was started with (`node --import tsx
 * apps/api/bench/<name>.ts`), not when another file (run.ts) imports it: exit 0 when `run` is done,
 * else its stack and exit 1. `run` prints its own figures, as they come.
 */
export function runIfMain(moduleFile: string, name: string, run: () => Promise<void>): void {
  if (!process.argv[1] || path.resolve(process.argv[1]) !== path.resolve(moduleFile)) return;
  run().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(`${name} bench failed: ${(err as Error).stack}`);
      process.exit(1);
    },
  );
}
