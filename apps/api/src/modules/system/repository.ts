import type { Queryable } from '../../db/client.js';

/** The health check's query (is the database there) and the figures the metrics read at scrape time. */
export function systemRepository(db: Queryable) {
  return {
    async ping(): Promise<void> {
      await db.query('select 1');
    },

    /** What a backup holds, said after a backup or a restore so the operator can compare the two (cli/db.ts). */
    async backupFigures(): Promise<{
      migration: string;
      customers: number;
      devices: number;
      payments: number;
      staffAudit: number;
    }> {
      const [row] = await db.query<{
        migration: string;
        customers: number;
        devices: number;
        payments: number;
        staff_audit: number;
      }>(
        `select (select max(name) from schema_migrations) as migration,
                (select count(*)::int from users) as customers,
                (select count(*)::int from wg_devices) as devices,
                (select count(*)::int from payments) as payments,
                (select count(*)::int from staff_audit) as staff_audit`,
      );
      return {
        migration: row!.migration,
        customers: row!.customers,
        devices: row!.devices,
        payments: row!.payments,
        staffAudit: row!.staff_audit,
      };
    },

    /**
     * Paid plans in force now, by tariff (metrics, read at scrape time): lifetime plans have no
     * expiry; deleted accounts do not count. Uses users_subscription_expiry for the dated ones.
     */
    async activeSubscriptions(): Promise<{ tariff: string; count: number }[]> {
      const rows = await db.query<{ tariff: string; count: number }>(
        `select tariff_key as tariff, count(*)::int as count from users
          where tariff_key <> 'free-plan' and deleted_at is null and (subscription_expires_at is null or subscription_expires_at > now())
          group by tariff_key order by tariff_key`,
      );
      return rows;
    },
  };
}
