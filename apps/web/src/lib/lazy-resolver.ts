import type { FieldValues, Resolver } from 'react-hook-form';

/**
 * A form resolver whose schema (and with it zod, ~25 kB gzip) loads on the first validation
 * instead of with the page: the fields render at once and the schema arrives while the
 * visitor types. The contract's schemas stay the single source of the rules.
 */
export function lazyResolver<TFieldValues extends FieldValues, TContext, TTransformed>(
  load: () => Promise<Resolver<TFieldValues, TContext, TTransformed>>,
): Resolver<TFieldValues, TContext, TTransformed> {
  let loading: Promise<Resolver<TFieldValues, TContext, TTransformed>> | null = null;
  return async (values, context, options) => {
    loading ??= load().catch((err: unknown) => {
      loading = null; // a failed chunk load is retried on the next validation
      throw err;
    });
    const resolver = await loading;
    return resolver(values, context, options);
  };
}
