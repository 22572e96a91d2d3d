/**
 * The Connections screen in jsdom for model-based tests: the real ConnectionsPage, its machines'
 * actors replaced by fakes (./fakeCalls.ts), and Mantine's browser needs.
 */
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import type { PromiseActorLogic } from 'xstate';
import type { ConnectReturn } from '../../src/domain/connectors/oauth.ts';
import { ROLE_POLICIES, type Policies } from '../../src/domain/roles.ts';
import type { connectionFormMachine } from '../../src/machines/connectionForm.ts';
import { connectionsMachine } from '../../src/machines/connections.ts';
import type { connectionTestMachine } from '../../src/machines/connectionTest.ts';
import { objectPickerMachine } from '../../src/machines/objectPicker.ts';
import type { sandboxEmptyMachine } from '../../src/machines/sandboxEmpty.ts';
import type { sandboxImportMachine } from '../../src/machines/sandboxImport.ts';
import type { DataSourceListItem, ObjectList } from '../../src/services/integrations.ts';
import { ConnectionsPage } from '../../src/views/connections/ConnectionsPage.tsx';
import { answeredCall } from './fakeCalls.ts';

export const FAKE_SOURCES: DataSourceListItem[] = [
  { id: '11111111-1111-4111-8111-111111111111', system: 'sftp', displayName: 'Partner SFTP', createdOn: '2026-11-01T09:00:00.000Z', createdBy: 'Ada Administrator', modifiedOn: '2026-11-20T09:30:00.000Z', modifiedBy: 'Ada Administrator', usedByCount: 1 },
  { id: '22222222-2222-4222-8222-222222222222', system: 'sandbox-crm', displayName: 'Sandbox CRM', createdOn: '2026-11-01T09:00:00.000Z', createdBy: null, modifiedOn: '2026-11-01T09:00:00.000Z', modifiedBy: null, usedByCount: 0 },
];

/** The list machine with a fake list (answered at once): the screen's other machines are the ones under test. */
export const fakeListedConnections = (sources = FAKE_SOURCES, form?: typeof connectionFormMachine, completeOAuth?: CompleteOAuthLogic) => connectionsMachine.provide({
  actors: { loadDataSources: answeredCall(() => sources).logic, ...(form ? { connectionForm: form } : {}), ...(completeOAuth ? { completeOAuth } : {}) },
});
type CompleteOAuthLogic = PromiseActorLogic<{ dataSourceId: string; detail: string }, ConnectReturn>;

/** An object picker whose fake list call answers at once with no objects (for tests of the other machines). */
export const quietObjectPicker = objectPickerMachine.provide({
  actors: { loadObjects: answeredCall<{ dataSourceId: string; fromSystem: boolean }, ObjectList>(() => ({ objects: [], refreshedOn: '2026-11-22T10:00:00.000Z' })).logic },
});

/** The screen over the fake list, with the machines under test; `connectionForm` is the form the list machine opens. */
export async function renderConnections({ connectionForm, policies = ROLE_POLICIES.Administrator, sources = FAKE_SOURCES, connectReturn, completeOAuth, ...machines }: {
  connectionTest?: typeof connectionTestMachine; objectPicker?: typeof objectPickerMachine; connectionForm?: typeof connectionFormMachine;
  sandboxImport?: typeof sandboxImportMachine; sandboxEmpty?: typeof sandboxEmptyMachine;
  /** the signed-in user's policies (an Administrator's unless said) */
  policies?: Policies;
  sources?: DataSourceListItem[];
  /** a vendor's answer to Connect, as the callback brings it back, and the fake that completes it */
  connectReturn?: ConnectReturn;
  completeOAuth?: CompleteOAuthLogic;
}) {
  const user = userEvent.setup({ delay: null });
  render(
    <MantineProvider>
      <ConnectionsPage
        policies={policies} connectReturn={connectReturn ?? null}
        machines={{ connections: fakeListedConnections(sources, connectionForm, completeOAuth), objectPicker: quietObjectPicker, ...machines }}
      />
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

/**
 * How a person does the connection form's editing events on the screen, for the form's model
 * tests: picks the system by its label, and types a name or a setting (pasted: one change, as
 * the machine's event is one).
 */
export function formEditEvents(
  user: ReturnType<typeof userEvent.setup>, drawer: () => HTMLElement, field: (key: string) => HTMLInputElement, systemLabel: string,
) {
  type Step = { event: { type: string } };
  return {
    'system.select': async () => {
      await user.click(within(drawer()).getByLabelText(/^System/));
      await user.click(await screen.findByRole('option', { name: systemLabel, hidden: true }));
    },
    'name.change': async ({ event }: Step) => {
      await user.click(field('displayName'));
      await user.paste((event as unknown as { value: string }).value);
    },
    'field.change': async ({ event }: Step) => {
      const { key, value } = event as unknown as { key: string; value: string };
      await user.clear(field(key));
      await user.paste(value);
    },
  };
}

