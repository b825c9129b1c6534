import { z } from 'zod';

/**
 * Every integer the API takes is bounded by the column it ends in. zod's `.int()` allows any
 * safe integer, and `{"id":2147483648}` reached an int4 column and answered 500 (issue 20): a
 * number the database cannot hold is bad input (422), found by the schema, not by PostgreSQL.
 * The hostile suite (apps/api/test/hostile.test.ts) holds every route's number fields to these
 * ranges: an integer fits int4 unless it is declared a bigint (`format: int64`, dbBigint).
 */

/** PostgreSQL `integer` (int4). */
export const INT4_MIN = -2_147_483_648;
export const INT4_MAX = 2_147_483_647;
/** The last second a `timestamptz` written from Unix time is sure to hold (9999-12-31T23:59:59Z). */
export const UNIX_SECONDS_MAX = 253_402_300_799;

interface NumberOptions {
  /** The message for a missing or non-numeric value. */
  error?: string;
  /** Read from text (query strings, path parameters, form fields): '12' is 12. */
  coerce?: boolean;
}

const number = ({ error, coerce }: NumberOptions = {}) =>
  coerce ? z.coerce.number(error ? { error } : undefined) : z.number(error ? { error } : undefined);

/** An integer stored in an `integer` column. Narrow it further with .min()/.max(). */
export const dbInt = (opts?: NumberOptions) => number(opts).int().min(INT4_MIN).max(INT4_MAX);

/** The id of a row with a `serial` / `integer` key (users, devices, nodes, locations): 1..2^31-1. */
export const dbId = (opts?: NumberOptions) => number(opts).int().min(1).max(INT4_MAX);

/**
 * An integer stored in (or compared with) a `bigint` column: byte counters, change-log versions,
 * Unix times in ms; as a JavaScript number, a safe integer. Marked `format: int64` in the JSON
 * Schema so the API's documents (and the hostile suite) know it is not an int4.
 */
export const dbBigint = (opts?: NumberOptions) =>
  number(opts).int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER).meta({ format: 'int64' });

/** The id of a row with a `bigserial` key (sessions, payments): 1..2^53-1. */
export const dbBigId = (opts?: NumberOptions) => dbBigint(opts).min(1);
