import fs from 'node:fs';
import { z } from 'zod';
import type { Database } from '../../db/client.js';

const currency = z.string().regex(/^[A-Z]{3}$/);
const catalogueFile = z.object({
  currencies: z.array(currency).min(1),
  countryCurrency: z.record(z.string().regex(/^[A-Z]{2}$/), currency).default({}),
  tariffs: z.array(
    z.object({
      id: z.number().int().positive(),
      key: z.string().regex(/^[a-z0-9-]+$/),
      name: z.string().min(1),
      periodDays: z.number().int().positive().nullable(),
      free: z.boolean().default(false),
      lifetime: z.boolean().default(false),
      trial: z.boolean().default(false),
      sort: z.number().int().default(0),
    }),
  ),
  priceLists: z.record(z.string().regex(/^[a-z0-9-]+$/), z.record(z.string().regex(/^\d+$/), z.record(currency, z.number().int().positive()))),
  promoCodes: z
    .array(
      z.object({
        code: z.string().regex(/^[A-Za-z0-9_-]{2,40}$/),
        percentOff: z.number().int().min(1).max(100),
        validFrom: z.iso.datetime().optional(),
        validUntil: z.iso.datetime().optional(),
        maxUses: z.number().int().positive().optional(),
        tariffIds: z.array(z.number().int()).optional(),
      }),
    )
    .default([]),
});
export type Catalogue = z.infer<typeof catalogueFile>;

export function readCatalogue(file: string): Catalogue {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`Cannot read the catalogue ${file}: ${(err as Error).message}`);
  }
  const parsed = catalogueFile.safeParse(raw);
  if (!parsed.success) throw new Error(`Invalid catalogue ${file}:\n${parsed.error.issues.map((i) => `  - ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  const c = parsed.data;
  if (!c.tariffs.some((t) => t.key === 'free-plan')) throw new Error(`Invalid catalogue ${file}: a tariff with key free-plan is required`);
  if (!c.priceLists.default) throw new Error(`Invalid catalogue ${file}: the default price list is required`);
  return c;
}

const CATALOGUE_LOCK = 727_002;

/**
 * Makes the database match the catalogue file: tariffs and prices are upserted, prices no
 * longer in the file are removed, promo codes keep their usage counts. Safe to run on every
 * start and from several instances at once.
 */
export async function seedCatalogue(db: Database, c: Catalogue): Promise<void> {
  await db.exclusive(CATALOGUE_LOCK, async (tx) => {
    for (const t of c.tariffs) {
      await tx.query(
        `insert into tariffs (id, key, name, period_days, is_free, is_lifetime, is_trial, sort) values ($1, $2, $3, $4, $5, $6, $7, $8)
         on conflict (id) do update set key = excluded.key, name = excluded.name, period_days = excluded.period_days, is_free = excluded.is_free,
           is_lifetime = excluded.is_lifetime, is_trial = excluded.is_trial, sort = excluded.sort`,
        [t.id, t.key, t.name, t.periodDays, t.free, t.lifetime, t.trial, t.sort],
      );
    }
    const keep: string[] = [];
    for (const [list, byTariff] of Object.entries(c.priceLists)) {
      for (const [tariffId, byCurrency] of Object.entries(byTariff)) {
        for (const [cur, amount] of Object.entries(byCurrency)) {
          keep.push(`${list}|${tariffId}|${cur}`);
          await tx.query(
            `insert into prices (price_list, tariff_id, currency, amount_minor) values ($1, $2, $3, $4)
             on conflict (price_list, tariff_id, currency) do update set amount_minor = excluded.amount_minor`,
            [list, Number(tariffId), cur, amount],
          );
        }
      }
    }
    await tx.query(`delete from prices where not (price_list || '|' || tariff_id || '|' || currency = any($1))`, [keep]);
    for (const p of c.promoCodes) {
      await tx.query(
        `insert into promo_codes (code, percent_off, valid_from, valid_until, max_uses, tariff_ids) values ($1, $2, $3, $4, $5, $6)
         on conflict (code) do update set percent_off = excluded.percent_off, valid_from = excluded.valid_from, valid_until = excluded.valid_until,
           max_uses = excluded.max_uses, tariff_ids = excluded.tariff_ids`,
        [p.code.toUpperCase(), p.percentOff, p.validFrom ?? null, p.validUntil ?? null, p.maxUses ?? null, p.tariffIds ?? null],
      );
    }
  });
}
