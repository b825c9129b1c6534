import { z } from 'zod';

/**
 * The billing address and VAT number a member keeps on their account (issue 23), printed on
 * receipts (the receipt keeps a copy: one issued before a change shows what it showed then).
 *
 * Validation is by format only: a VAT number's prefix and shape per EU country (as the EU's VIES
 * service documents them); whether the number is registered cannot be checked from here (no
 * network access to VIES), and the page says so. Outside the EU a tax id is free text of letters
 * and digits.
 */

/** ISO 3166-1 alpha-2: every country code an address may carry. */
export const COUNTRY_CODES = [
  'AD',
  'AE',
  'AF',
  'AG',
  'AI',
  'AL',
  'AM',
  'AO',
  'AQ',
  'AR',
  'AS',
  'AT',
  'AU',
  'AW',
  'AX',
  'AZ',
  'BA',
  'BB',
  'BD',
  'BE',
  'BF',
  'BG',
  'BH',
  'BI',
  'BJ',
  'BL',
  'BM',
  'BN',
  'BO',
  'BQ',
  'BR',
  'BS',
  'BT',
  'BV',
  'BW',
  'BY',
  'BZ',
  'CA',
  'CC',
  'CD',
  'CF',
  'CG',
  'CH',
  'CI',
  'CK',
  'CL',
  'CM',
  'CN',
  'CO',
  'CR',
  'CU',
  'CV',
  'CW',
  'CX',
  'CY',
  'CZ',
  'DE',
  'DJ',
  'DK',
  'DM',
  'DO',
  'DZ',
  'EC',
  'EE',
  'EG',
  'EH',
  'ER',
  'ES',
  'ET',
  'FI',
  'FJ',
  'FK',
  'FM',
  'FO',
  'FR',
  'GA',
  'GB',
  'GD',
  'GE',
  'GF',
  'GG',
  'GH',
  'GI',
  'GL',
  'GM',
  'GN',
  'GP',
  'GQ',
  'GR',
  'GS',
  'GT',
  'GU',
  'GW',
  'GY',
  'HK',
  'HM',
  'HN',
  'HR',
  'HT',
  'HU',
  'ID',
  'IE',
  'IL',
  'IM',
  'IN',
  'IO',
  'IQ',
  'IR',
  'IS',
  'IT',
  'JE',
  'JM',
  'JO',
  'JP',
  'KE',
  'KG',
  'KH',
  'KI',
  'KM',
  'KN',
  'KP',
  'KR',
  'KW',
  'KY',
  'KZ',
  'LA',
  'LB',
  'LC',
  'LI',
  'LK',
  'LR',
  'LS',
  'LT',
  'LU',
  'LV',
  'LY',
  'MA',
  'MC',
  'MD',
  'ME',
  'MF',
  'MG',
  'MH',
  'MK',
  'ML',
  'MM',
  'MN',
  'MO',
  'MP',
  'MQ',
  'MR',
  'MS',
  'MT',
  'MU',
  'MV',
  'MW',
  'MX',
  'MY',
  'MZ',
  'NA',
  'NC',
  'NE',
  'NF',
  'NG',
  'NI',
  'NL',
  'NO',
  'NP',
  'NR',
  'NU',
  'NZ',
  'OM',
  'PA',
  'PE',
  'PF',
  'PG',
  'PH',
  'PK',
  'PL',
  'PM',
  'PN',
  'PR',
  'PS',
  'PT',
  'PW',
  'PY',
  'QA',
  'RE',
  'RO',
  'RS',
  'RU',
  'RW',
  'SA',
  'SB',
  'SC',
  'SD',
  'SE',
  'SG',
  'SH',
  'SI',
  'SJ',
  'SK',
  'SL',
  'SM',
  'SN',
  'SO',
  'SR',
  'SS',
  'ST',
  'SV',
  'SX',
  'SY',
  'SZ',
  'TC',
  'TD',
  'TF',
  'TG',
  'TH',
  'TJ',
  'TK',
  'TL',
  'TM',
  'TN',
  'TO',
  'TR',
  'TT',
  'TV',
  'TW',
  'TZ',
  'UA',
  'UG',
  'UM',
  'US',
  'UY',
  'UZ',
  'VA',
  'VC',
  'VE',
  'VG',
  'VI',
  'VN',
  'VU',
  'WF',
  'WS',
  'YE',
  'YT',
  'ZA',
  'ZM',
  'ZW',
] as const;
export type CountryCode = (typeof COUNTRY_CODES)[number];

/**
 * EU VAT numbers by the country of the address: the prefix (Greece uses EL; Northern Ireland's XI
 * goes with GB) and the shape after it.
 */
export const EU_VAT_FORMATS: Readonly<Record<string, { prefix: string; pattern: RegExp; example: string }>> = {
  AT: { prefix: 'AT', pattern: /^U\d{8}$/, example: 'ATU12345678' },
  BE: { prefix: 'BE', pattern: /^[01]\d{9}$/, example: 'BE0123456789' },
  BG: { prefix: 'BG', pattern: /^\d{9,10}$/, example: 'BG123456789' },
  CY: { prefix: 'CY', pattern: /^\d{8}[A-Z]$/, example: 'CY12345678X' },
  CZ: { prefix: 'CZ', pattern: /^\d{8,10}$/, example: 'CZ12345678' },
  DE: { prefix: 'DE', pattern: /^\d{9}$/, example: 'DE123456789' },
  DK: { prefix: 'DK', pattern: /^\d{8}$/, example: 'DK12345678' },
  EE: { prefix: 'EE', pattern: /^\d{9}$/, example: 'EE123456789' },
  GR: { prefix: 'EL', pattern: /^\d{9}$/, example: 'EL123456789' },
  ES: { prefix: 'ES', pattern: /^[A-Z0-9]\d{7}[A-Z0-9]$/, example: 'ESX1234567X' },
  FI: { prefix: 'FI', pattern: /^\d{8}$/, example: 'FI12345678' },
  FR: { prefix: 'FR', pattern: /^[A-HJ-NP-Z0-9]{2}\d{9}$/, example: 'FR12345678901' },
  HR: { prefix: 'HR', pattern: /^\d{11}$/, example: 'HR12345678901' },
  HU: { prefix: 'HU', pattern: /^\d{8}$/, example: 'HU12345678' },
  IE: { prefix: 'IE', pattern: /^(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/, example: 'IE1234567T' },
  IT: { prefix: 'IT', pattern: /^\d{11}$/, example: 'IT12345678901' },
  LT: { prefix: 'LT', pattern: /^(\d{9}|\d{12})$/, example: 'LT123456789' },
  LU: { prefix: 'LU', pattern: /^\d{8}$/, example: 'LU12345678' },
  LV: { prefix: 'LV', pattern: /^\d{11}$/, example: 'LV12345678901' },
  MT: { prefix: 'MT', pattern: /^\d{8}$/, example: 'MT12345678' },
  NL: { prefix: 'NL', pattern: /^\d{9}B\d{2}$/, example: 'NL123456789B01' },
  PL: { prefix: 'PL', pattern: /^\d{10}$/, example: 'PL1234567890' },
  PT: { prefix: 'PT', pattern: /^\d{9}$/, example: 'PT123456789' },
  RO: { prefix: 'RO', pattern: /^\d{2,10}$/, example: 'RO1234567890' },
  SE: { prefix: 'SE', pattern: /^\d{10}01$/, example: 'SE123456789001' },
  SI: { prefix: 'SI', pattern: /^\d{8}$/, example: 'SI12345678' },
  SK: { prefix: 'SK', pattern: /^\d{10}$/, example: 'SK1234567890' },
};

/** A VAT number as it is stored: upper case, without spaces, dots or dashes. */
export const normalizeVatNumber = (raw: string) => raw.toUpperCase().replace(/[\s.-]/g, '');

/**
 * The problem with a VAT number for an address in `country`, or null: an EU country's number
 * needs its own prefix and shape; an EU prefix elsewhere is refused (the address and the number
 * must agree), except Northern Ireland's XI on a UK address; other countries' tax ids are 2 to 20
 * letters and digits.
 */
export function vatNumberProblem(country: string, raw: string): string | null {
  const vat = normalizeVatNumber(raw);
  if (!vat) return null;
  const eu = EU_VAT_FORMATS[country];
  if (eu) {
    if (!vat.startsWith(eu.prefix))
      return `A VAT number of this country starts with ${eu.prefix} (for example ${eu.example}).`;
    if (!eu.pattern.test(vat.slice(eu.prefix.length)))
      return `This is not the shape of a ${eu.prefix} VAT number (for example ${eu.example}).`;
    return null;
  }
  if (country === 'GB' && vat.startsWith('XI')) {
    return /^XI(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/.test(vat)
      ? null
      : 'This is not the shape of a Northern Ireland VAT number (for example XI123456789).';
  }
  const prefix = vat.slice(0, 2);
  const euPrefixes = Object.values(EU_VAT_FORMATS).map((f) => f.prefix);
  if (euPrefixes.includes(prefix) && /^[A-Z]{2}\d/.test(vat))
    return 'This VAT number belongs to another country than the address.';
  if (!/^[A-Z0-9]{2,20}$/.test(vat)) return 'A tax id is 2 to 20 letters and digits.';
  return null;
}

const line = (max: number, required: string) =>
  z
    .string({ error: required })
    .trim()
    .min(1, { error: required })
    .max(max, { error: `At most ${max} characters.` })
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), { error: 'Control characters are not allowed.' });

export const billingAddressBody = z
  .object({
    name: line(120, 'The name or company is required.'),
    line1: line(200, 'The street address is required.'),
    line2: z
      .string()
      .trim()
      .max(200, { error: 'At most 200 characters.' })
      .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), { error: 'Control characters are not allowed.' })
      .optional()
      .default(''),
    city: line(100, 'The city is required.'),
    postalCode: z
      .string()
      .trim()
      .max(20, { error: 'At most 20 characters.' })
      .regex(/^[A-Za-z0-9 -]*$/, { error: 'Letters, digits, spaces and dashes only.' })
      .optional()
      .default(''),
    country: z.enum(COUNTRY_CODES, { error: 'Choose a country from the list.' }),
    vatNumber: z.string().trim().max(40, { error: 'At most 40 characters.' }).optional().default(''),
  })
  .superRefine((v, ctx) => {
    const problem = vatNumberProblem(v.country, v.vatNumber);
    if (problem) ctx.addIssue({ code: 'custom', path: ['vatNumber'], message: problem });
  })
  .transform((v) => ({ ...v, vatNumber: normalizeVatNumber(v.vatNumber) }));
export type BillingAddressBody = z.input<typeof billingAddressBody>;
export type BillingAddress = z.output<typeof billingAddressBody>;

export const billingAddress = z.object({
  name: z.string(),
  line1: z.string(),
  line2: z.string(),
  city: z.string(),
  postalCode: z.string(),
  country: z.string(),
  vatNumber: z.string(),
});
/** GET /api/billing/address: the member's address, null when they keep none. */
export const billingAddressResult = z.object({ address: billingAddress.nullable() });
export type BillingAddressResult = z.infer<typeof billingAddressResult>;
