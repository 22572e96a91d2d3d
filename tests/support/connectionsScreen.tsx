/**
 * The Connections screen in jsdom for model-based tests: the real ConnectionsPage, its machines'
 * actors replaced by fakes the test answers by hand (named as fakes), and Mantine's browser needs.
 */
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { fromPromise } from 'xstate';
import { ROLE_POLICIES } from '../../src/domain/roles.ts';
import { connectionsMachine } from '../../src/machines/connections.ts';
import type { connectionTestMachine } from '../../src/machines/connectionTest.ts';
import { objectPickerMachine } from '../../src/machines/objectPicker.ts';
import type { DataSourceListItem, ObjectList } from '../../src/services/integrations.ts';
import { ConnectionsPage } from '../../src/views/connections/ConnectionsPage.tsx';

export const FAKE_SOURCES: DataSourceListItem[] = [
  { id: '11111111-1111-4111-8111-111111111111', system: 'sftp', displayName: 'Partner SFTP', createdOn: '2026-11-01T09:00:00.000Z', createdBy: 'Ada Administrator', modifiedOn: '2026-11-20T09:30:00.000Z', modifiedBy: 'Ada Administrator', usedByCount: 1 },
  { id: '22222222-2222-4222-8222-222222222222', system: 'sandbox-crm', displayName: 'Sandbox CRM', createdOn: '2026-11-01T09:00:00.000Z', createdBy: null, modifiedOn: '2026-11-01T09:00:00.000Z', modifiedBy: null, usedByCount: 0 },
];

/** A fake remote call the test answers: each call waits until `resolve` or `reject`. */
export function fakeCall<I, O>() {
  const calls: I[] = [];
  let pending: { resolve(o: O): void; reject(e: unknown): void } | null = null;
  return {
    calls,
    logic: fromPromise<O, I>(({ input }) => new Promise<O>((resolve, reject) => { calls.push(input); pending = { resolve, reject }; })),
    resolve(output: O) { const p = pending!; pending = null; p.resolve(output); },
    reject(error: unknown) { const p = pending!; pending = null; p.reject(error); },
    get waiting() { return pending !== null; },
  };
}

/** The list machine with a fake list (answered at once): the screen's other machines are the ones under test. */
export const fakeListedConnections = (sources = FAKE_SOURCES) => connectionsMachine.provide({
  actors: { loadDataSources: fromPromise(async () => sources) },
});

/** An object picker whose fake list call answers at once with no objects (for tests of the other machines). */
export const quietObjectPicker = objectPickerMachine.provide({
  actors: { loadObjects: fromPromise<ObjectList, { dataSourceId: string; fromSystem: boolean }>(async () => ({ objects: [], refreshedOn: '2026-11-22T10:00:00.000Z' })) },
});

export async function renderConnections(machines: { connectionTest?: typeof connectionTestMachine; objectPicker?: typeof objectPickerMachine }) {
  const user = userEvent.setup();
  render(
    <MantineProvider>
      <ConnectionsPage policies={ROLE_POLICIES.Administrator} machines={{ connections: fakeListedConnections(), objectPicker: quietObjectPicker, ...machines }} />
    </MantineProvider>,
  );
  await screen.findByRole('table', { name: 'Data Sources' });
  return user;
}

/** Selects a data source in the list; its details (test, objects) open beside it. */
export async function selectSource(user: ReturnType<typeof userEvent.setup>, name: string) {
  await user.click(screen.getByRole('button', { name }));
  return screen.findByRole('region', { name: `${name} details` });
}

export const detailsOf = (name: string) => screen.getByRole('region', { name: `${name} details` });
export const inDetails = (name: string) => within(detailsOf(name));

/** The connection test area of the selected data source. */
export const testArea = (name: string) => within(within(detailsOf(name)).getByTestId('connection-test'));
/** The object picker of the selected data source. */
export const pickerArea = (name: string) => within(within(detailsOf(name)).getByTestId('object-picker'));
