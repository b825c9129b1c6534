import fs from 'node:fs';
import { z } from 'zod';
import { DOWNLOAD_PLATFORMS, type DownloadApp, type operationSystem } from '@warren/contract';

type OperationSystem = z.infer<typeof operationSystem>;

/** Operator-edited files: the seed list of locations and the app downloads catalogue. */
const names = z.object({ en: z.string().min(1), ru: z.string().min(1), zh: z.string().min(1) });
export const locationSeed = z.object({
  slug: z.string().regex(/^[a-z0-9-]{2,40}$/),
  countryCode: z.string().regex(/^[A-Z]{2}$/),
  country: names,
  city: names,
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  premium: z.boolean(),
  dashVisible: z.boolean().default(true),
});
export type LocationSeed = z.infer<typeof locationSeed>;
const locationsFile = z.object({ nodeDomain: z.string().min(1), locations: z.array(locationSeed) });

/** Reserved names (RFC 2606/6761) that no published app lives on. */
function notPlaceholder(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'https:' && !/(^|\.)(example(\.(com|net|org))?|invalid|test|localhost)$/.test(u.hostname);
}

// A brand's own apps; Warren ships none (the web app points to the official WireGuard and OpenVPN clients).
const downloadsFile = z.object({
  items: z
    .array(
      z.object({
        id: z.number().int().positive(),
        platform: z.enum(DOWNLOAD_PLATFORMS),
        name: z.string().min(1),
        version: z.string().min(1),
        size: z.number().int().min(0),
        sha256: z.string().regex(/^([0-9a-f]{64})?$/),
        url: z
          .url()
          .refine(notPlaceholder, 'a real https address, not a placeholder host (example, invalid, test, localhost)'),
        kind: z.enum(['installer', 'apk', 'store', 'package']),
        minOs: z.string().default(''),
        releasedAt: z.string().default(''),
      }),
    )
    .refine((items) => new Set(items.map((i) => i.id)).size === items.length, 'ids must be unique')
    .refine(
      (items) =>
        items.every((i) => (i.kind === 'store' ? i.size === 0 && i.sha256 === '' : i.size > 0 && i.sha256 !== '')),
      'a file has its size and sha256; a store link has neither',
    ),
});

function readJson<T extends z.ZodType>(file: string, schema: T, what: string): z.infer<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`Cannot read the ${what} ${file}: ${(err as Error).message}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new Error(
      `Invalid ${what} ${file}:\n${parsed.error.issues.map((i) => `  - ${i.path.join('.')}: ${i.message}`).join('\n')}`,
    );
  return parsed.data;
}

export const loadLocationSeeds = (file: string) => readJson(file, locationsFile, 'locations file');

/** Style class per spec id (section 3: "a derived style class"). */
const CLASS_BY_PLATFORM: Record<string, string> = {
  windows: 'download-app--windows',
  mac: 'download-app--mac',
  ios: 'download-app--ios',
  android: 'download-app--android',
  'android-tv': 'download-app--android-tv',
  linux: 'download-app--linux',
};

/** GET /api/dashboard/operationSystems: every system the setup guide covers, with the spec's ids (1 Windows, 2 Mac, 7 Android, 8 Android TV; 3 iOS and 4 Linux are ours). */
export const OPERATION_SYSTEMS: OperationSystem[] = (
  [
    [1, 'windows', 'Windows'],
    [2, 'mac', 'macOS'],
    [3, 'ios', 'iOS'],
    [7, 'android', 'Android'],
    [8, 'android-tv', 'Android TV'],
    [4, 'linux', 'Linux'],
  ] as const
).map(([id, platform, name]) => ({ id, platform, name, className: CLASS_BY_PLATFORM[platform]! }));

export function loadDownloads(file: string): DownloadApp[] {
  return readJson(file, downloadsFile, 'downloads catalogue').items.map((i) => ({
    ...i,
    className: CLASS_BY_PLATFORM[i.platform]!,
  }));
}
