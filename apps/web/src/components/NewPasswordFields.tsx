import { PasswordInput, SimpleGrid, Stack } from '@mantine/core';
import '@mantine/core/styles/PasswordInput.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import type { FormEventHandler, ReactNode } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { PASSWORD_MIN } from '@warren/contract';
import { translateValidation } from '../lib/validation';

/**
 * A new password and its confirmation (reset, change, set-new-pass): the length hint, the
 * show/hide toggle's label, and the contract's messages in the UI language.
 */
export function NewPasswordFields({
  labels,
  register,
  errors,
  side = false,
}: {
  labels: { password: string; confirmation: string };
  /** The form's `register`: the fields are `password` and `password_confirmation`. */
  register: (name: 'password' | 'password_confirmation') => UseFormRegisterReturn;
  /** The form's `formState.errors` (raw messages, translated here). */
  errors: { password?: { message?: string }; password_confirmation?: { message?: string } };
  /** Side by side from the small breakpoint up. */
  side?: boolean;
}) {
  const { t } = useTranslation();
  const toggle = { 'aria-label': t('auth.fields.togglePassword') };
  const fields = (
    <>
      <PasswordInput
        label={labels.password}
        description={t('auth.signUp.passwordHint', { min: PASSWORD_MIN })}
        // Side by side, the hint goes under the field so both inputs line up.
        inputWrapperOrder={side ? ['label', 'input', 'description', 'error'] : undefined}
        autoComplete="new-password"
        error={translateValidation(errors.password?.message, t)}
        visibilityToggleButtonProps={toggle}
        {...register('password')}
      />
      <PasswordInput
        label={labels.confirmation}
        autoComplete="new-password"
        error={translateValidation(errors.password_confirmation?.message, t)}
        visibilityToggleButtonProps={toggle}
        {...register('password_confirmation')}
      />
    </>
  );
  return side ? <SimpleGrid cols={{ base: 1, sm: 2 }}>{fields}</SimpleGrid> : fields;
}

/** A form that asks for a new password only (the reset link, set-new-pass): the two fields, then `children` (its button). */
export function NewPasswordForm({
  onSubmit,
  children,
  ...fields
}: Parameters<typeof NewPasswordFields>[0] & { onSubmit: FormEventHandler<HTMLFormElement>; children: ReactNode }) {
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="md">
        <NewPasswordFields {...fields} />
        {children}
      </Stack>
    </form>
  );
}
