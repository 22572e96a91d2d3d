/**
 * The field picker: which destination fields the mapping table shows. At least one must be
 * selected, and a destination of more than 200 fields needs a selection before mapping (SPEC.md
 * section 5). A filter narrows the list; Select all and Clear act on what the filter shows.
 */
import { useId, useMemo, useState } from 'react';
import { Button, Checkbox, Group, Paper, ScrollArea, Stack, Text, TextInput } from '@mantine/core';
import type { FieldInfo } from '../../../../domain/api/integrations.ts';
import { FIELD_SELECTION_REQUIRED_ABOVE } from '../../../../domain/formula/constants.ts';

/** checkboxes drawn at once; a longer list is narrowed with the filter */
const DRAWN = 200;

export function FieldPicker({ fields, selected, onChange, error, disabled }: {
  fields: FieldInfo[];
  /** null: every field (only when no selection is required) */
  selected: string[] | null;
  onChange(names: Set<string>): void;
  error: string | null;
  disabled: boolean;
}) {
  const [filter, setFilter] = useState('');
  const headingId = useId();
  const errorId = useId();
  const chosen = useMemo(
    () => new Set(selected ?? (fields.length > FIELD_SELECTION_REQUIRED_ABOVE ? [] : fields.map((f) => f.name))),
    [selected, fields],
  );
  const needle = filter.trim().toLowerCase();
  const listed = needle ? fields.filter((f) => f.label.toLowerCase().includes(needle) || f.name.toLowerCase().includes(needle)) : fields;

  const toggle = (name: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(name); else next.delete(name);
    onChange(next);
  };
  const setListed = (on: boolean) => {
    const next = new Set(chosen);
    for (const f of listed) if (on) next.add(f.name); else next.delete(f.name);
    onChange(next);
  };

  return (
    <Paper withBorder p="sm" role="group" aria-labelledby={headingId} aria-describedby={error ? errorId : undefined}>
      <Stack gap="xs">
        <Text id={headingId} fw={600}>Fields to map</Text>
        <Text size="sm" c="dimmed">{chosen.size} of {fields.length} destination fields selected.</Text>
        {error && <Text id={errorId} size="sm" c="red" role="alert">{error}</Text>}
        <TextInput label="Find a field" value={filter} onChange={(e) => setFilter(e.currentTarget.value)} size="sm" />
        <Group gap="xs">
          <Button size="xs" variant="default" onClick={() => setListed(true)} disabled={disabled}>{needle ? 'Select these' : 'Select all'}</Button>
          <Button size="xs" variant="default" onClick={() => setListed(false)} disabled={disabled}>{needle ? 'Clear these' : 'Clear'}</Button>
        </Group>
        <ScrollArea.Autosize mah={240} type="auto">
          <Stack gap={6} py={4}>
            {listed.slice(0, DRAWN).map((f) => (
              <Checkbox
                key={f.name}
                label={f.required ? `${f.label} (required)` : f.label}
                checked={chosen.has(f.name)}
                onChange={(e) => toggle(f.name, e.currentTarget.checked)}
                disabled={disabled}
              />
            ))}
            {listed.length === 0 && <Text size="sm" c="dimmed">No field matches “{filter}”.</Text>}
            {listed.length > DRAWN && <Text size="sm" c="dimmed">{listed.length - DRAWN} more: find them by name.</Text>}
          </Stack>
        </ScrollArea.Autosize>
      </Stack>
    </Paper>
  );
}
