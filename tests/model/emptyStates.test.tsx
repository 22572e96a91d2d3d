/**
 * Empty states offer the action that fills them only to roles that may take it, role by role: the
 * Data Queue and All Formulas offer 'Create a formula' with formula create, and 'Go to Connections'
 * (when no data source can be a formula's source) with datasource view; Connections offers 'Add
 * your first data source' with datasource create. Others are told who can. The lists are fakes
 * answered at once.
 */
import type { ReactNode } from 'react';
import { cleanup, render, screen } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { DataSourceListItem } from '../../src/domain/connectors/types.ts';
import { can, ROLE_POLICIES, ROLES, type Role } from '../../src/domain/roles.ts';
import { connectionsMachine } from '../../src/machines/connections.ts';
import { ConnectionsPage } from '../../src/views/connections/ConnectionsPage.tsx';
import { formulaListMachine } from '../../src/machines/formulaList.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import { FormulaList } from '../../src/views/formulas/AllFormulasPage.tsx';
import { ActorsContext, type AppActors } from '../../src/views/shell/actors.tsx';

afterEach(() => cleanup());

/** the shell's authentication actor, as far as these screens read it: the signed-in user's policies */
function shellFor(role: Role): AppActors {
  const auth = createActor(createMachine({ context: { user: { policies: ROLE_POLICIES[role] } } })).start();
  return { auth, routeAccess: auth } as unknown as AppActors;
}

function renderInShell(role: Role, page: ReactNode) {
  const router = createMemoryRouter([{ path: '*', element: page }]);
  render(
    <MantineProvider>
      <ActorsContext.Provider value={shellFor(role)}>
        <RouterProvider router={router} />
      </ActorsContext.Provider>
    </MantineProvider>,
  );
}

const SANDBOX: DataSourceListItem = {
  id: '22222222-2222-4222-8222-222222222222', system: 'sandbox-crm', displayName: 'Sandbox CRM', createdOn: '2026-11-01T09:00:00.000Z',
  createdBy: null, modifiedOn: '2026-11-01T09:00:00.000Z', modifiedBy: null, usedByCount: 0,
};
/** no formula yet, over these data sources */
const noFormulas = (sources: DataSourceListItem[]) => formulaListMachine.provide({
  actors: { loadList: fromPromise(async () => ({ formulas: [] as FormulaView[], sources: sources as DataSourceListItem[] | null })) },
});

describe.each(['Data Queue', 'All Formulas'])('%s with no formula yet', (title) => {
  it.each(ROLES.map((r) => [r]))('as %s, with a data source to read from', async (role) => {
    renderInShell(role, <FormulaList title={title} logic={noFormulas([SANDBOX])} />);
    await screen.findByRole('heading', { level: 1, name: title });
    await screen.findByText(/^No formulas yet\./);
    const create = screen.queryByRole('button', { name: 'Create a formula' });
    if (can(ROLE_POLICIES[role], 'formula', 'create')) expect(create).toBeTruthy();
    else {
      expect(create).toBeNull();
      expect(screen.getByText(/whose role may create formulas/)).toBeTruthy();
    }
  });

  it.each(ROLES.map((r) => [r]))('as %s, with no data source', async (role) => {
    renderInShell(role, <FormulaList title={title} logic={noFormulas([])} />);
    await screen.findByText(/A formula reads from a data source/);
    expect(screen.queryByRole('button', { name: 'Create a formula' })).toBeNull();
    const go = screen.queryByRole('link', { name: 'Go to Connections' });
    expect(!!go).toBe(can(ROLE_POLICIES[role], 'datasource', 'view'));
  });
});

describe('Connections with no data source yet', () => {
  const empty = connectionsMachine.provide({ actors: { loadDataSources: fromPromise(async (): Promise<DataSourceListItem[]> => []) } });

  it.each(ROLES.filter((r) => can(ROLE_POLICIES[r], 'datasource', 'view')).map((r) => [r]))('as %s', async (role) => {
    render(<MantineProvider><ConnectionsPage policies={ROLE_POLICIES[role]} machines={{ connections: empty }} /></MantineProvider>);
    const box = await screen.findByTestId('connections-empty');
    const add = screen.queryByRole('button', { name: 'Add your first data source' });
    if (can(ROLE_POLICIES[role], 'datasource', 'create')) {
      expect(add).toBeTruthy();
      expect(box.textContent).toContain('Add the systems your formulas will read from');
    } else {
      expect(add).toBeNull();
      expect(box.textContent).toContain('whose role may manage connections');
    }
  });
});
