import type { FastifyInstance } from 'fastify';

/**
 * Reference data (tariffs, prices, servers) is seeded idempotently by the modules that own it;
 * accounts have none yet. Kept as the one place server start-up calls.
 */
export async function seed(_app: FastifyInstance): Promise<void> {}
