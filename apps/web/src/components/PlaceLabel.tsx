import { Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import classes from './PlaceLabel.module.css';

/**
 * The country as a small code chip. Flag emoji are not drawn on Windows nor by Linux without an
 * emoji font, so we do not rely on them.
 */
export function Flag({ code }: { code: string }) {
  return (
    <span className={classes.flag} aria-hidden>
      {code.toUpperCase()}
    </span>
  );
}

/** A place: its country chip, a bold name over a dimmed one (a long name wraps, never "Johannesb…"), then `children`. */
export function PlaceLabel({
  code,
  title,
  subtitle,
  className,
  children,
}: {
  code: string;
  title: string;
  subtitle: string;
  className?: string;
  children?: ReactNode;
}) {
  return (
    <Group gap="sm" wrap="nowrap" miw={0} className={className}>
      <Flag code={code} />
      <Stack gap={0} miw={0}>
        <Text fw={600} className={classes.name}>
          {title}
        </Text>
        <Text size="sm" c="dimmed" className={classes.name}>
          {subtitle}
        </Text>
      </Stack>
      {children}
    </Group>
  );
}
