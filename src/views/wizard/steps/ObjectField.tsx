/**
 * The object a formula reads or writes, chosen from its data source's objects (the objectPicker
 * machine): the kept list, read again from the system with Refresh (for editors). When the list
 * cannot be read, the list read before or else the system's standard objects are offered, and the
 * reason shows. The chosen value is the step's own field; the picker is the step editor's.
 */
import type { ReactNode } from 'react';
import { useSelector } from '@xstate/react';
import { ActionIcon, Alert, Group, NativeSelect, Stack, Text, Tooltip } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import type { ObjectInfo } from '../../../domain/connectors/types.ts';
import { listedObjects, type ObjectPickerRef } from '../../../machines/objectPicker.ts';

/** A choice that is no object of the list (a file name pattern). */
export interface ExtraOption { value: string; label: string }

export interface ObjectFieldProps {
  label: string;
  description?: ReactNode;
  /** the data source's object picker (the step editor runs one per end: objectPickerInputOf) */
  picker: ObjectPickerRef;
  displayName: string;
  value: string;
  onChange(value: string): void;
  canEdit: boolean;
  error?: string;
  extra?: ExtraOption[];
  /** a way to add objects not in the kept list yet (a file upload), shown under the choice */
  upload?: (add: (object: ObjectInfo) => void) => ReactNode;
  children?: ReactNode;
}

export function ObjectField({ label, description, picker, displayName, value, onChange, canEdit, error, extra = [], upload, children }: ObjectFieldProps) {
  const listed = useSelector(picker, (s) => listedObjects(s.context));
  // nothing to choose from until the first read answers
  const unread = useSelector(picker, (s) => s.matches('refreshing') && !s.context.hasRead);
  const refreshing = useSelector(picker, (s) => s.matches('refreshing') && s.context.fromSystem);
  const problem = useSelector(picker, (s) => (s.matches('failed') ? s.context.error : null));

  const data = [
    { value: '', label: unread ? 'Loading objects…' : 'Choose an object', disabled: true },
    ...listed.map((o) => ({ value: o.name, label: o.label })),
    ...extra,
  ];
  // a saved object the list no longer shows stays visible as it is
  if (value && !data.some((d) => d.value === value)) data.push({ value, label: value });

  return (
    <Stack gap="xs">
      <Group align="flex-end" gap="xs" wrap="nowrap">
        <NativeSelect
          label={label} description={description} required data={data} value={value}
          onChange={(e) => onChange(e.currentTarget.value)} error={error} disabled={!canEdit || unread} style={{ flex: 1, minWidth: 0 }}
        />
        {canEdit && (
          <Tooltip label="Read the objects from the system again">
            <ActionIcon
              variant="default" size="input-sm" onClick={() => picker.send({ type: 'objects.refresh' })} loading={refreshing}
              aria-label={`Refresh the objects of ${displayName}`}
            >
              <IconRefresh size={18} aria-hidden />
            </ActionIcon>
          </Tooltip>
        )}
      </Group>
      {refreshing && <Text size="sm" role="status">Refreshing objects…</Text>}
      {problem && (
        <Alert color="yellow" role="alert" title={`The objects of ${displayName} could not be read`}>
          <Text size="sm">{problem}</Text>
        </Alert>
      )}
      {children}
      {upload?.((object) => picker.send({ type: 'objects.add', object }))}
    </Stack>
  );
}
