import { forwardRef, type ComponentPropsWithoutRef } from 'react';
import { Avatar, Group, UnstyledButton } from '@mantine/core';
import '@mantine/core/styles/Avatar.layer.css';
import { useTranslation } from 'react-i18next';
import { initials, type User } from '@warren/contract';
import { IconChevronDown } from '../../components/icons';
import classes from './AppLayout.module.css';

type UserButtonProps = ComponentPropsWithoutRef<'button'> & { user: Pick<User, 'firstName' | 'secondName' | 'email'> };

/** The header's avatar button: the same element before and after the menu's code arrives. */
export const UserButton = forwardRef<HTMLButtonElement, UserButtonProps>(function UserButton({ user, ...rest }, ref) {
  const { t } = useTranslation();
  const letters = initials(user);
  // The name starts with the initials the button shows (WCAG 2.5.3: a voice user says what they see).
  return (
    <UnstyledButton
      ref={ref}
      className={classes.userButton}
      aria-label={`${letters}, ${t('shell.userMenu')}`}
      {...rest}
    >
      <Group gap={8} wrap="nowrap">
        <Avatar color="brand" radius="xl" size={34}>
          {letters}
        </Avatar>
        <IconChevronDown size={14} className={classes.hideMobile} />
      </Group>
    </UnstyledButton>
  );
});
