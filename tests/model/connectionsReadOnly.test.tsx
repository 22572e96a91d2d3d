/**
 * The Connections screen for roles without datasource edit: a connection test and a refresh of
 * the objects call the system with the saved credentials, which the server refuses without edit,
 * so the screen does not offer them. The kept object list is still shown. The list and object
 * calls are fakes answered at once.
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { afterEach, describe, expect, it } from 'vitest';
import { fromPromise } from 'xstate';
import type { DataSourceListItem } from '../../src/domain/connectors/types.ts';
import { ROLE_POLICIES, type Role } from '../../src/domain/roles.ts';
import { connectionsMachine } from '../../src/machines/connections.ts';
import { objectPickerMachine } from '../../src/machines/objectPicker.ts';
import type { ObjectList } from '../../src/services/integrations.ts';
import { ConnectionsPage } from '../../src/views/connections/ConnectionsPage.tsx';

afterEach(() => cleanup());

const SOURCE: DataSourceListItem = {
  id: '33333333-3333-4333-8333-333333333333', system: 'sandbox-crm', displayName: 'Sandbox CRM',
  createdOn: '2026-11-01T09:00:00.000Z', createdBy: null, modifiedOn: '2026-11-01T09:00:00.000Z', modifiedBy: null, usedByCount: 0,
};
const KEPT: ObjectList = { objects: [{ name: 'constituents', label: 'Constituents' }], refreshedOn: '2026-11-22T10:00:00.000Z' };

async function detailsFor(role: Role) {
  const user = userEvent.setup({ delay: null });
  const listed = connectionsMachine.provide({ actors: { loadDataSources: fromPromise(async () => [SOURCE]) } });
  const picker = objectPickerMachine.provide({ actors: { loadObjects: fromPromise<ObjectList, { dataSourceId: string; fromSystem: boolean }>(async () => KEPT) } });
  render(
    <MantineProvider>
      <ConnectionsPage policies={ROLE_POLICIES[role]} machines={{ connections: listed, objectPicker: picker }} />
    </MantineProvider>,
  );
  await user.click(await screen.findByRole('button', { name: SOURCE.displayName }));
  const details = await screen.findByRole('region', { name: `${SOURCE.displayName} details` });
  await within(details).findByRole('radio', { name: 'Constituents' });
  return details;
}

describe('Connections for roles without datasource edit', () => {
  it.each(['View Only', 'Formula Producer'] as const)('%s sees the kept objects, but no Test connection and no Refresh', async (role) => {
    const details = await detailsFor(role);
    expect(within(details).queryByRole('button', { name: 'Test connection' })).toBeNull();
    expect(within(details).queryByRole('button', { name: 'Refresh objects' })).toBeNull();
    // nor may they empty the Sandbox CRM (the server refuses it too: tests/api/sandboxEmpty.test.ts)
    expect(within(details).queryByRole('button', { name: 'Empty Sandbox CRM' })).toBeNull();
  });

  it.each(['Connection Manager', 'Power User', 'Administrator'] as const)('%s is offered both', async (role) => {
    const details = await detailsFor(role);
    await waitFor(() => expect(within(details).getByRole('button', { name: 'Test connection' })).toBeTruthy());
    expect(within(details).getByRole('button', { name: 'Refresh objects' })).toBeTruthy();
    expect(within(details).getByRole('button', { name: 'Empty Sandbox CRM' })).toBeTruthy();
  });
});
