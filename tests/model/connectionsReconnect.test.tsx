/**
 * A data source whose vendor revoked its grant (the connector kit marks it, server/connectors/kit/grant.ts):
 * the Data Sources list says "Needs reconnecting" on its row, its details say why and since when,
 * a role that may edit connections gets Reconnect (the form opens with the same words and Connect),
 * and a role that may not is told who can. The list and form calls are fakes answered at once.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { DataSourceListItem } from '../../src/domain/connectors/types.ts';
import { ROLE_POLICIES } from '../../src/domain/roles.ts';
import { connectionFormMachine, type LoadedDataSource } from '../../src/machines/connectionForm.ts';
import { renderConnections, selectSource } from '../support/connectionsScreen.tsx';
import { answeredCall } from '../support/fakeCalls.ts';

afterEach(() => cleanup());

const REASON = "Raiser's Edge NXT no longer accepts this connection's sign-in (it was revoked or has expired). The data source needs reconnecting: open it in Connections and connect again.";
const REVOKED: DataSourceListItem = {
  id: '44444444-4444-4444-8444-444444444444', system: 'renxt', displayName: 'Riverside RE NXT',
  createdOn: '2026-11-01T09:00:00.000Z', createdBy: 'Ada Administrator', modifiedOn: '2026-11-20T09:30:00.000Z', modifiedBy: 'Ada Administrator',
  usedByCount: 1, needsReconnecting: { reason: REASON, since: '2026-11-26T14:05:00.000Z' },
};
const HEALTHY: DataSourceListItem = { ...REVOKED, id: '55555555-5555-4555-8555-555555555555', displayName: 'Riverside RE NXT (test)', needsReconnecting: null };

const form = connectionFormMachine.provide({
  actors: {
    loadDataSource: answeredCall<{ dataSourceId: string }, LoadedDataSource>(() => ({
      system: 'renxt', displayName: REVOKED.displayName, savedSecrets: ['clientSecret', 'subscriptionKey', 'refreshToken'],
      values: { clientId: 'app-1', clientSecret: '', subscriptionKey: '', refreshToken: '' }, needsReconnecting: REASON,
    })).logic,
  },
});

const rowOf = (name: string) => screen.getByRole('button', { name }).closest('tr')!;

describe('a data source that needs reconnecting', () => {
  it('is marked on its row of the list, and only there', async () => {
    await renderConnections({ sources: [REVOKED, HEALTHY] });
    expect(within(rowOf(REVOKED.displayName)).getByText('Needs reconnecting')).toBeTruthy();
    expect(within(rowOf(HEALTHY.displayName)).queryByText('Needs reconnecting')).toBeNull();
  });

  it('says why and since when in its details, and Reconnect opens the form that connects it again', async () => {
    const user = await renderConnections({ sources: [REVOKED], connectionForm: form, policies: ROLE_POLICIES['Connection Manager'] });
    const details = await selectSource(user, REVOKED.displayName);
    const notice = within(details).getByTestId('needs-reconnecting');
    expect(notice.textContent).toContain(REASON);
    expect(notice.textContent).toMatch(/Since .*2026/);
    await user.click(within(notice).getByRole('button', { name: 'Reconnect' }));
    const dialog = await screen.findByRole('dialog');
    const connect = await within(dialog).findByTestId('oauth-connect');
    await waitFor(() => expect(connect.textContent).toContain('Needs reconnecting'));
    expect(connect.textContent).not.toContain('Connected');
    expect(connect.textContent).toContain(REASON);
    expect(within(connect).getByRole('button', { name: "Connect to Raiser's Edge NXT" })).toBeTruthy();
  });

  it('tells a role that may not edit connections who can connect it again', async () => {
    const user = await renderConnections({ sources: [REVOKED], policies: ROLE_POLICIES['View Only'] });
    const notice = within(await selectSource(user, REVOKED.displayName)).getByTestId('needs-reconnecting');
    expect(within(notice).queryByRole('button', { name: 'Reconnect' })).toBeNull();
    expect(notice.textContent).toContain('A colleague whose role may edit connections can connect it again.');
  });
});
