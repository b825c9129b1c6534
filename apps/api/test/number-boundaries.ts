import { INT4_MAX, INT4_MIN } from '@warren/contract';
import { z } from 'zod';

/**
 * Boundary numbers for the hostile suite (issue 20, finding 8): `{"id":2147483648}` passed a
 * schema that allowed any safe integer and reached an int4 column, which answered 500. Every
 * number a route takes (body, query, path; documented or hidden) is found from the route's own
 * zod schema and sent the edges of PostgreSQL's integer and of JavaScript's numbers, as raw JSON
 * text (so `-0` and `1e309` arrive as written).
 */

/** A JSON Schema node as zod writes it (draft 2020-12). */
export interface NumberSchema {
  type?: string | string[];
  properties?: Record<string, NumberSchema>;
  required?: string[];
  items?: NumberSchema;
  anyOf?: NumberSchema[];
  oneOf?: NumberSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
}

/** Raw JSON text for a body; query strings and path segments get the same text without JSON quotes. */
export const BOUNDARY_JSON = [
  '2147483648', // 2^31: one past int4
  '2147483647', // 2^31-1
  '-2147483648',
  '-2147483649',
  '4294967296', // 2^32
  '9007199254740991', // 2^53-1
  '9007199254740992', // 2^53
  '9007199254740993', // 2^53+1 (parses as 2^53)
  '-9007199254740993',
  '1e21',
  '-0',
  '0',
  '-1',
  '1e309', // Infinity after JSON.parse
  '-1e309',
  '1.5',
  '2147483647.5',
  '1e-7',
  '1e3',
  '1.0',
  '"1e3"',
  '"2147483648"',
  '"-0"',
  '"NaN"',
  '"Infinity"',
  '"0x10"',
  '" 1"',
  '""',
];
export const BOUNDARY_TEXT = [
  ...new Set(BOUNDARY_JSON.map((v) => (v.startsWith('"') ? (JSON.parse(v) as string) : v))),
];

const types = (s: NumberSchema) => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);
export const isNumberSchema = (s: NumberSchema) => types(s).some((t) => t === 'integer' || t === 'number');

/** The request schemas of a route as JSON Schema (input side: what the client sends). */
export function toJsonSchema(schema: unknown): NumberSchema | undefined {
  if (!schema || typeof schema !== 'object' || !('_zod' in schema)) return undefined;
  return z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as NumberSchema;
}

/** Every number field of a schema, with its path (array items at index 0). */
export function numberSlots(
  schema: NumberSchema,
  path: (string | number)[] = [],
  depth = 0,
): { path: (string | number)[]; schema: NumberSchema }[] {
  if (depth > 8) return [];
  const out: { path: (string | number)[]; schema: NumberSchema }[] = [];
  const options = schema.anyOf ?? schema.oneOf;
  // A union is one field: `true | 0 | 1` takes 0 although its `const: 1` option does not.
  if (isNumberSchema(schema) || options?.some(isNumberSchema)) out.push({ path, schema });
  for (const option of options ?? []) if (!isNumberSchema(option)) out.push(...numberSlots(option, path, depth + 1));
  for (const [key, child] of Object.entries(schema.properties ?? {}))
    out.push(...numberSlots(child, [...path, key], depth + 1));
  if (schema.items) out.push(...numberSlots(schema.items, [...path, 0], depth + 1));
  return out;
}

const STRING_CANDIDATES = [
  'Test device',
  'a',
  'user@example.com',
  'sandbox',
  'USD',
  'US',
  'en',
  'de-frankfurt',
  '00000000-0000-4000-8000-000000000000',
  'abcdefghijklmnop',
  '123456',
];

/** A value the schema probably accepts, so that the number under test is what the route meets. */
export function sampleOf(s: NumberSchema): unknown {
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const option = (s.anyOf ?? s.oneOf)?.find((o) => !types(o).includes('null')) ?? (s.anyOf ?? s.oneOf)?.[0];
  if (option) return sampleOf(option);
  const type = types(s).find((t) => t !== 'null');
  switch (type) {
    case 'integer':
    case 'number': {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
      return Math.min(Math.max(min, 1), s.maximum ?? Infinity);
    }
    case 'boolean':
      return true;
    case 'string': {
      const fits = (v: string) =>
        v.length >= (s.minLength ?? 0) &&
        v.length <= (s.maxLength ?? Infinity) &&
        (!s.pattern || new RegExp(s.pattern, 'u').test(v)) &&
        (s.format !== 'email' || v.includes('@'));
      return STRING_CANDIDATES.find(fits) ?? 'a'.repeat(Math.max(s.minLength ?? 1, 1));
    }
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => sampleOf(s.items ?? {}));
    case 'object':
      return Object.fromEntries((s.required ?? []).map((k) => [k, sampleOf(s.properties?.[k] ?? {})]));
    default:
      return 'a';
  }
}

/** A plausible value of `schema` with `marker` at `path` (containers on the way are filled in). */
export function withValueAt(schema: NumberSchema, path: (string | number)[], marker: unknown): unknown {
  if (!path.length) return marker;
  const [head, ...rest] = path;
  if (typeof head === 'number') return [withValueAt(schema.items ?? {}, rest, marker)];
  const base = sampleOf({ ...schema, type: 'object' }) as Record<string, unknown>;
  return { ...base, [head!]: withValueAt(schema.properties?.[head!] ?? {}, rest, marker) };
}

/**
 * Must the route refuse `n` for this field? Outside its declared range, not an integer where one
 * is declared, not finite, or not among its values. (What the schema declares is held to the
 * column by `unboundedNumber`.)
 */
export function outOfRange(s: NumberSchema, n: number): boolean {
  const options = s.anyOf ?? s.oneOf;
  if (options) return options.filter(isNumberSchema).every((o) => outOfRange(o, n));
  if (!Number.isFinite(n)) return true;
  if (s.const !== undefined) return s.const !== n;
  if (s.enum) return !s.enum.includes(n);
  if (types(s).includes('integer') && !Number.isInteger(n)) return true;
  if (s.minimum !== undefined && n < s.minimum) return true;
  if (s.maximum !== undefined && n > s.maximum) return true;
  if (s.exclusiveMinimum !== undefined && !(n > s.exclusiveMinimum)) return true;
  if (s.exclusiveMaximum !== undefined && !(n < s.exclusiveMaximum)) return true;
  return false;
}

/**
 * Why a number field is not bounded by a column, or undefined when it is: an integer fits an
 * int4 column unless it is declared `format: int64` (a bigint column, the contract's dbBigint),
 * and then a safe integer; a fractional number declares both ends.
 */
export function unboundedNumber(s: NumberSchema): string | undefined {
  const options = s.anyOf ?? s.oneOf;
  if (options) return options.filter(isNumberSchema).map(unboundedNumber).find(Boolean);
  if (s.enum || s.const !== undefined) return undefined;
  const min = s.minimum ?? s.exclusiveMinimum;
  const max = s.maximum ?? s.exclusiveMaximum;
  if (min === undefined || max === undefined) return `no ${min === undefined ? 'minimum' : 'maximum'}`;
  if (!types(s).includes('integer')) return undefined;
  const [lo, hi] = s.format === 'int64' ? [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] : [INT4_MIN, INT4_MAX];
  if (min < lo || max > hi)
    return `${min}..${max} does not fit ${s.format === 'int64' ? 'a safe integer' : 'an int4 column (a bigint column is declared with dbBigint)'}`;
  return undefined;
}
