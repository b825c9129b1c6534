import { Button, Group, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import '@mantine/core/styles/SimpleGrid.layer.css';
import { zodResolver } from '@hookform/resolvers/zod';
import { COUNTRY_CODES, EU_VAT_FORMATS, billingAddressBody, type BillingAddress } from '@warren/contract';
import { useEffect, useMemo } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { SectionCard } from '../../../components/SectionCard';
import { applyFieldErrors } from '../../../lib/forms';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { useBillingAddress } from '../api/get-billing-address';
import { useRemoveBillingAddress } from '../api/remove-billing-address';
import { useSaveBillingAddress } from '../api/save-billing-address';

type Values = z.input<typeof billingAddressBody>;
const FIELDS = ['name', 'line1', 'line2', 'city', 'postalCode', 'country', 'vatNumber'] as const;
const EMPTY: Values = { name: '', line1: '', line2: '', city: '', postalCode: '', country: '' as never, vatNumber: '' };

/** Country names in the page's language (the browser's ICU), sorted by name. */
function useCountries(language: string) {
  return useMemo(() => {
    let names: Intl.DisplayNames | undefined;
    try {
      names = new Intl.DisplayNames([language], { type: 'region' });
    } catch {
      names = undefined;
    }
    return COUNTRY_CODES.map((code) => ({ value: code, label: names?.of(code) ?? code })).sort((a, b) =>
      a.label.localeCompare(b.label, language),
    );
  }, [language]);
}

/**
 * The billing address and VAT number on receipts (issue 23): kept on the account, editable,
 * printed on the receipts issued from now on (an issued receipt keeps what it showed).
 */
export function BillingAddressCard() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const query = useBillingAddress();
  const save = useSaveBillingAddress();
  const remove = useRemoveBillingAddress();
  const countries = useCountries(lang);
  const { register, handleSubmit, setError, formState, reset, control, watch } = useForm<
    Values,
    unknown,
    BillingAddress
  >({ resolver: zodResolver(billingAddressBody), defaultValues: EMPTY, mode: 'onTouched' });
  const saved = query.data?.address ?? null;
  useEffect(() => {
    if (query.data)
      reset(query.data.address ? { ...query.data.address, country: query.data.address.country as never } : EMPTY);
  }, [query.data, reset]);
  const country = watch('country');
  const example = EU_VAT_FORMATS[country]?.example;

  const err = (field: (typeof FIELDS)[number]) => {
    const m = formState.errors[field]?.message;
    if (!m) return undefined;
    if (field === 'vatNumber')
      return example ? t('billingAddress.vatInvalidEu', { example }) : t('billingAddress.vatInvalid');
    if (field === 'country') return t('billingAddress.countryInvalid');
    if (/required/.test(m)) return t('billingAddress.required');
    if (/At most/.test(m)) return t('billingAddress.tooLong');
    return t('billingAddress.invalid');
  };

  const onSubmit = handleSubmit(async (values) => {
    try {
      await save.mutateAsync(values);
      snackbar(t('billingAddress.saved'), { kind: 'success' });
    } catch (e) {
      const body = errorBodyOf(e);
      const rest = applyFieldErrors(body, setError, FIELDS);
      if (rest.length || !body?.errors) snackbar(errorText(body, t('billingAddress.failed')), { kind: 'error' });
    }
  });

  if (!query.data) return null;
  return (
    <SectionCard id="billing-address" title={t('billingAddress.title')} intro={t('billingAddress.intro')}>
      <form onSubmit={onSubmit} noValidate data-testid="billing-address-form">
        <Stack gap="sm">
          <TextInput
            label={t('billingAddress.name')}
            autoComplete="billing organization"
            error={err('name')}
            {...register('name')}
          />
          <TextInput
            label={t('billingAddress.line1')}
            autoComplete="billing address-line1"
            error={err('line1')}
            {...register('line1')}
          />
          <TextInput
            label={t('billingAddress.line2')}
            autoComplete="billing address-line2"
            error={err('line2')}
            {...register('line2')}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput
              label={t('billingAddress.postalCode')}
              autoComplete="billing postal-code"
              error={err('postalCode')}
              {...register('postalCode')}
            />
            <TextInput
              label={t('billingAddress.city')}
              autoComplete="billing address-level2"
              error={err('city')}
              {...register('city')}
            />
          </SimpleGrid>
          <Controller
            control={control}
            name="country"
            render={({ field }) => (
              <Select
                label={t('billingAddress.country')}
                data={countries}
                searchable
                size="md"
                radius="md"
                value={field.value || null}
                onChange={(v) => field.onChange(v ?? '')}
                onBlur={field.onBlur}
                error={err('country')}
                nothingFoundMessage={t('billingAddress.noCountry')}
                data-testid="billing-country"
              />
            )}
          />
          <TextInput
            label={t('billingAddress.vatNumber')}
            description={t('billingAddress.vatNote')}
            placeholder={example}
            error={err('vatNumber')}
            {...register('vatNumber')}
          />
          <Group>
            <Button type="submit" loading={save.isPending} data-testid="billing-address-save">
              {t('billingAddress.save')}
            </Button>
            {saved && (
              <Button
                variant="subtle"
                color="red"
                loading={remove.isPending}
                data-testid="billing-address-remove"
                onClick={() =>
                  remove.mutate(undefined, {
                    onSuccess: () => snackbar(t('billingAddress.removed'), { kind: 'success' }),
                    onError: (e) => snackbar(errorText(errorBodyOf(e), t('billingAddress.failed')), { kind: 'error' }),
                  })
                }
              >
                {t('billingAddress.remove')}
              </Button>
            )}
          </Group>
          <Text size="xs" c="dimmed">
            {t('billingAddress.receiptsNote')}
          </Text>
        </Stack>
      </form>
    </SectionCard>
  );
}
