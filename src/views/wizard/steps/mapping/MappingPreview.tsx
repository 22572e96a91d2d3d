/**
 * The live preview: the first sample rows as the destination would receive them, computed by the
 * engine's own functions (transformRecord, validateRecord). Each cell shows the value, or why the
 * field's transforms failed, and the rules it breaks with the bucket the record would go to.
 */
import { Alert, Button, Stack, Table, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { FieldInfo } from '../../../../domain/api/integrations.ts';
import { transformRecord, valueText } from '../../../../domain/formula/transforms.ts';
import { validateRecord } from '../../../../domain/formula/validationRules.ts';
import { previewParts, type MappingForm } from '../../../../domain/formula/mappingForm.ts';
import { LOAD_MESSAGES } from '../../../../machines/wizardSteps.ts';
import type { SampleState } from './useMappingData.ts';

export const PREVIEW_ROWS = 5;

export function MappingPreview({ form, shown, sample, onRetry }: { form: MappingForm; shown: FieldInfo[]; sample: SampleState; onRetry(): void }) {
  if (sample.status === 'loading') return <Text size="sm" c="dimmed" role="status">Loading the sample rows…</Text>;
  if (sample.status === 'failed') {
    return (
      <Alert color="yellow" icon={<IconAlertTriangle aria-hidden />} role="alert">
        <Stack gap="xs" align="flex-start">
          <Text size="sm">{LOAD_MESSAGES.sample} The mapping can still be saved.</Text>
          <Button size="xs" variant="light" onClick={onRetry}>Load the sample again</Button>
        </Stack>
      </Alert>
    );
  }
  const rows = sample.sample.rows.slice(0, PREVIEW_ROWS);
  const parts = previewParts(form, shown);
  const columns = shown.filter((f) => form.fields[f.name] && form.fields[f.name]!.kind !== 'ignored');
  if (!rows.length) return <Text size="sm" c="dimmed">The source has no sample rows to preview.</Text>;
  if (!columns.length) return <Text size="sm" c="dimmed">Map a field to see the preview.</Text>;

  const records = rows.map((row) => {
    const { values, errors } = transformRecord(parts.mapping, parts.transform, row);
    const allErrors = { ...errors, ...parts.incomplete };
    return { values, errors: allErrors, failures: validateRecord(parts.validation, values, allErrors) };
  });

  return (
    <Table.ScrollContainer minWidth={Math.max(320, 80 + columns.length * 170)} type="native" mah={340}>
      <Table withTableBorder withColumnBorders stickyHeader aria-label="Preview" verticalSpacing={6} fz="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Row</Table.Th>
            {columns.map((f) => <Table.Th key={f.name} scope="col">{f.label}</Table.Th>)}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {records.map((r, i) => (
            <Table.Tr key={i}>
              <Table.Th scope="row">{i + 1}</Table.Th>
              {columns.map((f) => {
                const error = r.errors[f.name];
                const value = r.values[f.name] ?? null;
                return (
                  <Table.Td key={f.name} data-field={f.name}>
                    {error !== undefined
                      ? <Text size="sm" c="red">Error: {error}</Text>
                      : value === null || value === ''
                        ? <Text size="sm" c="dimmed" fs="italic">empty</Text>
                        : <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{valueText(value)}</Text>}
                    {r.failures.filter((x) => x.destination === f.name).map((x, k) => (
                      <Text key={k} size="xs" c="orange.8">{x.message}: goes to {x.bucket}</Text>
                    ))}
                  </Table.Td>
                );
              })}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
