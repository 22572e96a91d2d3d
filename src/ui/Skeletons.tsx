/**
 * Placeholders in the shape of what is coming, so a screen waiting for data shows its layout at
 * once instead of a blank area or a spinner. Each is one live region that says what it waits for.
 */
import { Skeleton, Stack, Table } from '@mantine/core';

// the page area's skeleton is in PageSkeleton.tsx, light enough for the first bundle: a table is not

/** A table's header and a few rows of bars, with `caption` saying what is loading. */
export function TableSkeleton({ columns, rows = 3, caption }: { columns: string[]; rows?: number; caption: string }) {
  return (
    <Stack gap="xs" role="status" aria-busy="true" aria-label={caption}>
      {/* bars of relative width: the skeleton fits any screen without scrolling */}
      <Table withTableBorder aria-hidden>
        <Table.Thead>
          <Table.Tr>{columns.map((c, i) => <Table.Th key={i}>{c}</Table.Th>)}</Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {Array.from({ length: rows }, (_, r) => (
            <Table.Tr key={r}>
              {columns.map((_, i) => <Table.Td key={i}><Skeleton height={12} width={`${70 - ((r + i) % 3) * 15}%`} radius="sm" /></Table.Td>)}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <span style={{ fontSize: 'var(--mantine-font-size-sm)', color: 'var(--mantine-color-dimmed)' }}>{caption}</span>
    </Stack>
  );
}
