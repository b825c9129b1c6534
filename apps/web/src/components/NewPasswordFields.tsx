import { PasswordInput, SimpleGrid } from '@mantine/core';
import '@mantine/core/styles/PasswordInput.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
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
  password,
  confirmation,
  errors,
  side = false,
}: {
  labels: { password: string; confirmation: string };
  password: UseFormRegisterReturn;
  confirmation: UseFormRegisterReturn;
  /** The form's raw messages for the two fields. */
  errors: { password?: string; confirmation?: string };
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
        error={translateValidation(errors.password, t)}
        visibilityToggleButtonProps={toggle}
        {...password}
      />
      <PasswordInput
        label={labels.confirmation}
        autoComplete="new-password"
        error={translateValidation(errors.confirmation, t)}
        visibilityToggleButtonProps={toggle}
        {...confirmation}
      />
    </>
  );
  return side ? <SimpleGrid cols={{ base: 1, sm: 2 }}>{fields}</SimpleGrid> : fields;
}
