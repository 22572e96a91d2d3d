/**
 * The object a formula reads or writes, chosen from its data source's objects: the kept list,
 * read again from the system with Refresh (for editors). When the list cannot be read, the
 * system's standard objects are offered, and the reason shows.
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { ActionIcon, Alert, Group, NativeSelect, Stack, Text, Tooltip } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { connectorFor } from '../../../domain/connectors/catalogue.ts';
import type { ObjectInfo, SystemId } from '../../../domain/connectors/types.ts';
import { useWizardServices } from '../step.tsx';
import { problemOf } from './shared.tsx';

/** A choice that is no object of the list (a file name pattern). */
export interface ExtraOption { value: string; label: string }

export function ObjectPicker({ label, description, dataSourceId, displayName, system, value, onChange, canEdit, error, added = [], extra = [], children }: {
  label: string;
  description?: ReactNode;
  dataSourceId: string;
  displayName: string;
  system: SystemId;
  value: string;
  onChange(value: string): void;
  canEdit: boolean;
  error?: string;
  /** objects known here but perhaps not in the kept list yet (a file just uploaded) */
  added?: ObjectInfo[];
  extra?: ExtraOption[];
  children?: ReactNode;
}) {
  const { integrations } = useWizardServices();
  const [objects, setObjects] = useState<ObjectInfo[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [refreshing, setRefreshing] = useState(false);

  const read = useCallback(async (fromSystem: boolean) => {
    setProblem(null);
    if (fromSystem) setRefreshing(true);
    try {
      const list = fromSystem ? await integrations.refreshObjects(dataSourceId, { silent: true }) : await integrations.objects(dataSourceId, { silent: true });
      setObjects(list.objects);
    } catch (err) {
      const p = problemOf(err);
      setProblem(p.status === 403 ? 'Reading objects from the system needs permission to edit data sources.' : p.detail ?? 'The system could not be reached.');
      setObjects((kept) => kept ?? connectorFor(system).objects);
    } finally {
      setRefreshing(false);
    }
  }, [integrations, dataSourceId, system]);
  useEffect(() => { void read(false); }, [read]);

  const listed = [...added, ...(objects ?? [])].filter((o, i, all) => all.findIndex((x) => x.name === o.name) === i);
  const data = [
    { value: '', label: objects ? 'Choose an object' : 'Loading objects…', disabled: true },
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
          onChange={(e) => onChange(e.currentTarget.value)} error={error} disabled={!canEdit || !objects} style={{ flex: 1, minWidth: 0 }}
        />
        {canEdit && (
          <Tooltip label="Read the objects from the system again">
            <ActionIcon
              variant="default" size="input-sm" onClick={() => void read(true)} loading={refreshing}
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
    </Stack>
  );
}
