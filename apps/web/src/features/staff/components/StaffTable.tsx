import type { ReactNode } from 'react';
import { Table } from '@mantine/core';
import '@mantine/core/styles/Table.layer.css';

/**
 * A data table that scrolls sideways on a phone instead of squeezing its columns; the scroll
 * area is focusable and labelled so a keyboard can scroll it too.
 */
export function StaffTable({ label, minWidth = 640, head, children, testId }: { label: string; minWidth?: number; head: ReactNode[]; children: ReactNode; testId?: string }) {
  return (
    <Table.ScrollContainer minWidth={minWidth} type="native" tabIndex={0} role="region" aria-label={label}>
      <Table verticalSpacing="xs" highlightOnHover data-testid={testId}>
        <Table.Thead>
          <Table.Tr>
            {head.map((h, i) => (
              <Table.Th key={i} scope="col">
                {h}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
