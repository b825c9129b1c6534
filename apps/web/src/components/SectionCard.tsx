import { Card, Text, Title } from '@mantine/core';
import type { CSSProperties, ReactNode } from 'react';

/** A page section as a card: labelled by its heading (`id`), a dimmed intro under it, then `children`. */
export function SectionCard({
  id,
  title,
  intro,
  style,
  children,
}: {
  id: string;
  title: string;
  intro: string;
  style?: CSSProperties;
  children: ReactNode;
}) {
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby={id} style={style}>
      <Title order={2} fz={18} mb={4} id={id}>
        {title}
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        {intro}
      </Text>
      {children}
    </Card>
  );
}
