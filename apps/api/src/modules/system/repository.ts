import type { Queryable } from '../../db/client.js';

/** The health check's one query: is the database there. */
export function systemRepository(db: Queryable) {
  return {
    async ping(): Promise<void> {
      await db.query('select 1');
    },
  };
}
