/** The object picker: a data source's objects, refreshed from the system on request (refreshing, complete). */
import { useActorRef, useSelector } from '@xstate/react';
import { ActionIcon, Alert, Group, Loader, Radio, ScrollArea, Stack, Text, Title, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconRefresh } from '@tabler/icons-react';
import { objectPickerMachine } from '../../machines/objectPicker.ts';

export interface ObjectPickerProps {
  dataSourceId: string;
  machine?: typeof objectPickerMachine;
  onSelect?(name: string): void;
  /** a refresh reads the list from the system with the saved credentials, which needs datasource edit */
  mayRefresh?: boolean;
}

export function ObjectPicker({ dataSourceId, machine = objectPickerMachine, onSelect, mayRefresh = true }: ObjectPickerProps) {
  const actor = useActorRef(machine, { input: { dataSourceId } });
  const state = useSelector(actor, (s) => s);
  const { objects, refreshedOn, selected, error } = state.context;
  const refreshing = state.matches('refreshing');
  return (
    <Stack gap="xs" data-testid="object-picker" data-state={String(state.value)}>
      <Group justify="space-between">
        <Title order={4}>Objects</Title>
        {mayRefresh && (
          <Tooltip label="Refresh the list from the system">
            <ActionIcon variant="subtle" aria-label="Refresh objects" loading={refreshing} onClick={() => actor.send({ type: 'objects.refresh' })}>
              <IconRefresh size={18} aria-hidden />
            </ActionIcon>
          </Tooltip>
        )}
      </Group>
      {refreshing && (
        <Group gap="xs" aria-live="polite"><Loader size="xs" /><Text size="sm">Refreshing objects…</Text></Group>
      )}
      {state.matches('failed') && (
        <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title="Objects could not be read">{error}</Alert>
      )}
      {state.matches('complete') && (
        objects.length === 0
          ? <Text size="sm" c="dimmed">This data source has no objects yet.</Text>
          : (
            <>
              <ScrollArea.Autosize mah={260}>
                <Radio.Group
                  value={selected}
                  onChange={(name) => { actor.send({ type: 'object.select', name }); onSelect?.(name); }}
                >
                  <Stack gap={6} role="radiogroup" aria-label="Objects">
                    {objects.map((o) => <Radio key={o.name} value={o.name} label={o.label} />)}
                  </Stack>
                </Radio.Group>
              </ScrollArea.Autosize>
              {refreshedOn && <Text size="xs" c="dimmed" data-testid="objects-refreshed-on">Read {new Date(refreshedOn).toLocaleString()}</Text>}
            </>
          )
      )}
    </Stack>
  );
}
