import type { Ref } from 'react';
import { TextInput, type TextInputProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { IconMail } from './icons';

/** The email field of every account form: type, autocomplete and keyboard for an address. */
export function EmailInput(props: Omit<TextInputProps, 'type'> & { ref?: Ref<HTMLInputElement> }) {
  const { t } = useTranslation();
  return (
    <TextInput
      label={t('auth.fields.email')}
      type="email"
      autoComplete="email"
      inputMode="email"
      placeholder="you@example.com"
      leftSection={<IconMail size={18} />}
      {...props}
    />
  );
}
