import fs from 'node:fs';
import { z } from 'zod';
import type { Database } from '../../db/client.js';
import { billingRepository } from './repository.js';

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
  priceLists: z.record(
    z.string().regex(/^[a-z0-9-]+$/),
    z.record(z.string().regex(/^\d+$/), z.record(currency, z.number().int().positive())),
  ),
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
  if (!parsed.success)
    throw new Error(
      `Invalid catalogue ${file}:\n${parsed.error.issues.map((i) => `  - ${i.path.join('.')}: ${i.message}`).join('\n')}`,
    );
  const c = parsed.data;
  if (!c.tariffs.some((t) => t.key === 'free-plan'))
    throw new Error(`Invalid catalogue ${file}: a tariff with key free-plan is required`);
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
    const repo = billingRepository(tx);
    for (const t of c.tariffs) {
      await repo.upsertTariff({
        id: t.id,
        key: t.key,
        name: t.name,
        periodDays: t.periodDays,
        free: t.free,
        lifetime: t.lifetime,
        trial: t.trial,
        sort: t.sort,
      });
    }
    const keep: string[] = [];
    for (const [list, byTariff] of Object.entries(c.priceLists)) {
      for (const [tariffId, byCurrency] of Object.entries(byTariff)) {
        for (const [cur, amount] of Object.entries(byCurrency)) {
          keep.push(`${list}|${tariffId}|${cur}`);
          await repo.setPrice(list, Number(tariffId), cur, amount);
        }
      }
    }
    await repo.deletePricesExcept(keep);
    for (const p of c.promoCodes) {
      await repo.upsertPromo({
        code: p.code.toUpperCase(),
        percentOff: p.percentOff,
        validFrom: p.validFrom ?? null,
        validUntil: p.validUntil ?? null,
        maxUses: p.maxUses ?? null,
        tariffIds: p.tariffIds ?? null,
      });
    }
  });
}
