/**
 * Model-based tests of the Connections screen's own machine on the real page: loading, the empty
 * state, the Data Sources list, selecting, adding and editing in the drawer (with the saved
 * secret behind its shield), and deleting after confirmation, refused while a formula uses the
 * source. The list, delete and form calls are fakes the test answers.
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import type { DataSourceView } from '../../src/domain/connectors/catalogue.ts';
import { CONNECTION_FIELD_MESSAGE } from '../../src/domain/connectors/fields.ts';
import { ROLE_POLICIES } from '../../src/domain/roles.ts';
import { connectionFormMachine, type ConnectionFormContext, type LoadedDataSource } from '../../src/machines/connectionForm.ts';
import { connectionsMachine, type ConnectionsEvent } from '../../src/machines/connections.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { DataSourceListItem } from '../../src/services/integrations.ts';
import { ConnectionsPage } from '../../src/views/connections/ConnectionsPage.tsx';
import { FAKE_SOURCES, quietObjectPicker } from '../support/connectionsScreen.tsx';
import { answeredCall, fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const SFTP = FAKE_SOURCES[0]!;
const SAVED_VIEW: DataSourceView = {
  id: SFTP.id, system: 'sftp', displayName: SFTP.displayName,
  settings: { host: 'sftp.partner.org', port: '22', username: 'tributary', authenticationType: 'password', password: { saved: true }, folder: '/out' },
  createdOn: SFTP.createdOn, createdBy: 'Ada Administrator', modifiedOn: SFTP.modifiedOn, modifiedBy: 'Ada Administrator', usedBy: [],
};
const IN_USE = new ApiError(409, { title: 'datasource-in-use', detail: '"Partner SFTP" is used by the formula "Weekly gifts". Remove it from that formula first.' }, { silent: true });
const BROKEN = new ApiError(500, { title: 'server-error', detail: 'A server error occured. Please try again later.' }, { silent: true });

type Event = ConnectionsEvent
  | { type: 'xstate.done.actor.loadDataSources'; output: DataSourceListItem[] }
  | { type: 'xstate.error.actor.loadDataSources'; error: unknown }
  | { type: 'xstate.done.actor.deleteDataSource' }
  | { type: 'xstate.error.actor.deleteDataSource'; error: unknown }
  | { type: 'xstate.done.actor.connectionForm'; output: { saved: DataSourceView | null } };

const EVENTS: Event[] = [
  { type: 'xstate.done.actor.loadDataSources', output: FAKE_SOURCES },
  { type: 'xstate.done.actor.loadDataSources', output: [] },
  { type: 'xstate.error.actor.loadDataSources', error: BROKEN },
  { type: 'list.reload' },
  { type: 'source.select', id: SFTP.id },
  { type: 'source.add' },
  { type: 'source.edit', id: SFTP.id },
  { type: 'source.delete', id: SFTP.id },
  { type: 'delete.confirm' },
  { type: 'delete.cancel' },
  { type: 'delete.dismiss' },
  { type: 'xstate.done.actor.deleteDataSource' },
  { type: 'xstate.error.actor.deleteDataSource', error: IN_USE },
  { type: 'xstate.done.actor.connectionForm', output: { saved: SAVED_VIEW } },
  { type: 'xstate.done.actor.connectionForm', output: { saved: null } },
];

type Snapshot = SnapshotFrom<typeof connectionsMachine>;
const serializeState = (s: Snapshot) => JSON.stringify([s.value, s.context.dataSources.length, s.context.selectedId, s.context.form?.mode ?? null, s.context.notice]);
const TRAVERSAL = {
  input: { policies: ROLE_POLICIES.Administrator },
  serializeState: (s: unknown) => serializeState(s as Snapshot),
  serializeEvent: (e: unknown) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}` : v)),
};
const model = testModel<typeof connectionsMachine, Event>(connectionsMachine, { ...TRAVERSAL, events: EVENTS });

function harness(machine: typeof connectionsMachine) {
  const list = fakeCall<unknown, DataSourceListItem[]>('loadDataSources');
  const remove = fakeCall<{ id: string }, void>('deleteDataSource');
  const save = answeredCall<ConnectionFormContext, DataSourceView>(() => SAVED_VIEW);
  const saves = save.calls;
  const form = connectionFormMachine.provide({
    actors: {
      loadDataSource: answeredCall<{ dataSourceId: string }, LoadedDataSource>(() => ({
        system: 'sftp', displayName: SFTP.displayName, savedSecrets: ['password'],
        values: { host: 'sftp.partner.org', port: '22', username: 'tributary', authenticationType: 'password', password: '', privateKey: '', passphrase: '', folder: '/out', hostKeyFingerprint: '' },
      })).logic,
      saveDataSource: save.logic,
    },
  });
  const provided = machine.provide({ actors: { loadDataSources: list.logic, deleteDataSource: remove.logic, connectionForm: form } });
  const user = userEvent.setup({ delay: null });
  render(
    <MantineProvider>
      <ConnectionsPage policies={ROLE_POLICIES.Administrator} machines={{ connections: provided, objectPicker: quietObjectPicker }} />
    </MantineProvider>,
  );
  return { user, list, remove, saves };
}
type Harness = ReturnType<typeof harness>;


function pathParams(h: Harness) {
  const { user } = h;
  return {
    states: {
      loading: async (s: Snapshot) => {
        if (s.context.dataSources.length === 0) await screen.findByText('Loading data sources…');
        else expect(screen.getByRole('table', { name: 'Data Sources' }).getAttribute('aria-busy')).toBe('true');
      },
      loadFailed: async () => {
        const alert = await screen.findByRole('alert');
        expect(alert.textContent).toContain('The data sources could not be loaded');
        expect(within(alert).getByRole('button', { name: 'Try again' })).toBeTruthy();
      },
      ready: async (s: Snapshot) => {
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
        if (s.context.dataSources.length === 0) {
          expect(screen.getByTestId('connections-empty').textContent).toContain('No data sources yet');
          return;
        }
        const table = screen.getByRole('table', { name: 'Data Sources' });
        expect(table.getAttribute('aria-busy')).toBe('false');
        const rows = within(table).getAllByRole('row').slice(1);
        expect(rows.map((r) => within(r).getAllByRole('cell')[0]!.textContent)).toEqual(s.context.dataSources.map((d) => `${d.displayName}${d.usedByCount ? 'in use' : ''}`));
        expect(within(rows[0]!).getAllByRole('cell')[1]!.textContent).toBe('Secure FTP');
        const details = screen.queryByRole('region', { name: /details$/ });
        expect(details?.getAttribute('aria-label') ?? null).toBe(s.context.selectedId ? `${s.context.dataSources.find((d) => d.id === s.context.selectedId)!.displayName} details` : null);
        if (s.context.notice) expect(screen.getByRole('status').textContent).toContain(s.context.notice);
      },
      editing: async (s: Snapshot) => {
        const d = await screen.findByRole('dialog');
        if (s.context.form!.mode === 'create') {
          expect(within(d).getByText('Add data source')).toBeTruthy();
          expect(within(d).getByLabelText(/^System/)).toBeTruthy();
        } else {
          await within(d).findByText('Edit Partner SFTP');
          // the saved password: a shield, an empty field, and no value anywhere on the page
          expect(within(d).getByRole('img', { name: 'Password is saved' })).toBeTruthy();
          expect((within(d).getByLabelText('Password') as HTMLInputElement).value).toBe('');
          expect((within(d).getByLabelText(/^Host( \*)?$/) as HTMLInputElement).value).toBe('sftp.partner.org');
        }
      },
      confirmingDelete: async () => {
        const d = await screen.findByRole('dialog', { name: 'Delete data source' });
        expect(d.textContent).toContain('Delete Partner SFTP?');
      },
      deleting: async () => {
        const d = await screen.findByRole('dialog', { name: 'Delete data source' });
        await waitFor(() => expect(within(d).getByRole('button', { name: 'Delete' }).getAttribute('data-loading')).toBe('true'));
      },
      deleteRefused: async (s: Snapshot) => {
        const d = await screen.findByRole('dialog', { name: 'This data source cannot be deleted' });
        expect(within(d).getByRole('alert').textContent).toBe(s.context.refusal);
        expect(d.textContent).toContain('Weekly gifts');
      },
    },
    events: {
      'xstate.done.actor.loadDataSources': ({ event }: { event: { type: string } }) => h.list.answer(event),
      'xstate.error.actor.loadDataSources': ({ event }: { event: { type: string } }) => h.list.answer(event),
      'list.reload': async () => {
        await user.click(screen.queryByRole('button', { name: 'Try again' }) ?? screen.getByRole('button', { name: 'Reload data sources' }));
      },
      'source.select': async () => { await user.click(screen.getByRole('button', { name: SFTP.displayName })); },
      'source.add': async () => {
        const empty = screen.queryByRole('button', { name: 'Add your first data source' });
        await user.click(empty ?? screen.getByRole('button', { name: 'Add data source' }));
      },
      'source.edit': async () => { await user.click(screen.getByRole('button', { name: `Edit ${SFTP.displayName}` })); },
      'source.delete': async () => { await user.click(screen.getByRole('button', { name: `Delete ${SFTP.displayName}` })); },
      'delete.confirm': async () => { await user.click(within(screen.getByRole('dialog', { name: 'Delete data source' })).getByRole('button', { name: 'Delete' })); },
      'delete.cancel': async () => { await user.click(within(screen.getByRole('dialog', { name: 'Delete data source' })).getByRole('button', { name: 'Cancel' })); },
      'delete.dismiss': async () => { await user.click(screen.getByRole('button', { name: 'OK' })); },
      'xstate.done.actor.deleteDataSource': ({ event }: { event: { type: string } }) => h.remove.answer(event),
      'xstate.error.actor.deleteDataSource': ({ event }: { event: { type: string } }) => h.remove.answer(event),
      'xstate.done.actor.connectionForm': async ({ event }: { event: { type: string } }) => {
        const saved = (event as unknown as { output: { saved: DataSourceView | null } }).output.saved;
        const d = await screen.findByRole('dialog');
        if (!saved) { await user.click(within(d).getByRole('button', { name: 'Cancel' })); return; }
        if (within(d).queryByText('Add data source')) {
          // a new Secure FTP source: required fields are refused word for word until filled
          await user.click(within(d).getByLabelText(/^System/));
          await user.click(await screen.findByRole('option', { name: 'Secure FTP', hidden: true }));
          await user.click(within(d).getByRole('button', { name: 'Save' }));
          expect(within(d).getAllByText(CONNECTION_FIELD_MESSAGE).length).toBeGreaterThan(1);
          await user.type(within(d).getByLabelText(/^Display name/), SFTP.displayName);
          await user.type(within(d).getByLabelText(/^Host( \*)?$/), 'sftp.partner.org');
          await user.type(within(d).getByLabelText(/^User name/), 'tributary');
          await user.type(within(d).getByLabelText(/^Password/), 'river-Pass-2026');
        } else {
          await within(d).findByText('Edit Partner SFTP');
          await user.clear(within(d).getByLabelText(/^Folder/));
          await user.type(within(d).getByLabelText(/^Folder/), '/in');
        }
        await user.click(within(d).getByRole('button', { name: 'Save' }));
        await waitFor(() => expect(h.saves.length).toBeGreaterThan(0));
        const sent = h.saves.at(-1)!;
        // an edit leaves the saved password empty, which keeps it
        if (sent.mode === 'edit') expect(sent.values.password).toBe('');
        else expect(sent.values.password).toBe('river-Pass-2026');
      },
    },
  };
}

/** the screen over the fake list, delete and form calls */
const view: ModelView<typeof connectionsMachine, Harness> = { render: harness, params: pathParams };

const shortest = model.getShortestPaths();

describe('connections machine: shortest paths on the Connections screen', () => {
  it('reaches every state of the screen', () => {
    expect([...reachedStates(shortest)].sort()).toEqual(['"confirmingDelete"', '"deleteRefused"', '"deleting"', '"editing"', '"loadFailed"', '"loading"', '"ready"']);
  });
  it.each(named(shortest, (p) => p.description.slice(0, 200)))('%s', async (_d, path) => runPath(path, connectionsMachine, view));
});

describe('the suite can fail', () => {
  it('finds a machine whose in-use guard is broken on purpose', async () => {
    const refused = shortest.filter((p) => p.state.matches('deleteRefused'));
    await expectBrokenGuardToFail(connectionsMachine, 'isInUse', { paths: refused, view, every: true });
  });
});

describe("the tenant's built-in File upload data source", () => {
  it('is listed with a "built in" badge and offers no Delete, where the others do', async () => {
    const h = harness(connectionsMachine);
    const builtIn: DataSourceListItem = { ...SFTP, id: 'b1b1b1b1-0000-4000-8000-000000000001', system: 'file-upload', displayName: 'File upload', usedByCount: 0, builtIn: true };
    await waitFor(() => expect(h.list.waiting).toBe(true));
    await h.list.answer({ type: 'xstate.done.actor.loadDataSources', output: [builtIn, SFTP] });
    const row = await screen.findByTestId(`data-source-${builtIn.id}`);
    expect(within(row).getByText('built in')).toBeTruthy();
    expect(within(row).queryByRole('button', { name: 'Delete File upload' })).toBeNull();
    expect(within(row).getByRole('button', { name: 'Edit File upload' })).toBeTruthy();
    expect(within(screen.getByTestId(`data-source-${SFTP.id}`)).getByRole('button', { name: `Delete ${SFTP.displayName}` })).toBeTruthy();
  });
});
