/**
 * The wizard dialog over a wizard machine provided with fake calls (wizardOver): the formula and
 * the open step's editor load and save through them, so the dialog makes no real call (the data
 * sources it lists and the schedule it saves are the fakes').
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { Notifications, notifications } from '@mantine/notifications';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, setup } from 'xstate';
import type { DataSourceListItem } from '../../src/domain/connectors/types.ts';
import type { WizardStep } from '../../src/domain/formula/wizard.ts';
import { policiesFor } from '../../src/domain/roles.ts';
import { flagsMachine } from '../../src/machines/flags.ts';
import { wizardOver } from '../../src/machines/wizard.ts';
import type { SnapshotRequest, SnapshotResult } from '../../src/services/flags.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import { ActorsContext, FlagsActorContext } from '../../src/views/shell/actors.tsx';
import type { StepCalls } from '../../src/machines/wizardSteps.ts';
import { WizardHost } from '../../src/views/wizard/WizardDialog.tsx';
import { VALID_PARTS } from '../support/formulaParts.ts';

afterEach(() => {
  cleanup();
  notifications.clean();
});

const FORMULA_ID = '3f6c8a52-0c1e-4d1a-9a57-6c0f8e2b7d10';
const CRM: DataSourceListItem = {
  id: '22222222-2222-4222-8222-222222222222', system: 'sandbox-crm', displayName: 'Partner CRM',
  createdOn: '2026-11-01T09:00:00.000Z', createdBy: null, modifiedOn: '2026-11-01T09:00:00.000Z', modifiedBy: null, usedByCount: 0,
};
const end = { dataSourceId: CRM.id, object: 'constituents', settings: {}, system: 'sandbox-crm' as const, displayName: 'Partner CRM', hasAdditionalSettings: false };
const FORMULA: FormulaView = {
  id: FORMULA_ID, name: 'Spring appeal', isDraft: true, usesFileUpload: false, sourceDataSource: end, firstDestinationDataSource: end,
  sampleUploadId: null, status: 'inactive', jobStatus: null, needsReprocess: false, archivedOn: null, parts: ['schedule'], createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-01T00:00:00Z',
};

/** a call these tests do not answer: it fails, as a real one would not be made */
const none = () => vi.fn(async () => { throw new Error('not faked'); });

function renderDialog(step: WizardStep, formula: FormulaView = FORMULA) {
  const fakes = {
    list: vi.fn(async () => [CRM]),
    getPart: vi.fn(async () => VALID_PARTS.schedule),
    putPart: vi.fn(async () => undefined),
    get: vi.fn(async () => formula),
  };
  const services = {
    formulas: { get: fakes.get, getPart: fakes.getPart, putPart: fakes.putPart, update: none(), activate: none(), sample: none(), dryRun: none(), deletePart: none() },
    integrations: { list: fakes.list, objects: none(), refreshObjects: none(), fields: none(), checkSalesforceReport: none() },
  } as unknown as StepCalls;
  const flags = createActor(flagsMachine.provide({
    actors: { fetchSnapshot: fromPromise<SnapshotResult, SnapshotRequest>(async () => ({ status: 'fetched', snapshot: { namespace: { key: 'default' }, flags: [] }, etag: '"1"' })) },
  }), { input: {} }).start();
  const auth = createActor(setup({}).createMachine({ context: { user: { policies: policiesFor(['Formula Producer']) } } })).start();
  const router = createMemoryRouter([{ path: '*', element: <WizardHost logic={wizardOver(services)} /> }], {
    initialEntries: [`/integrations-formulas?wizardFormulaId=${FORMULA_ID}&wizardStep=${step}`],
  });
  render(
    <MantineProvider>
      <Notifications />
      <ActorsContext.Provider value={{ auth, routeAccess: null } as never}>
        <FlagsActorContext.Provider value={flags}>
          <RouterProvider router={router} />
        </FlagsActorContext.Provider>
      </ActorsContext.Provider>
    </MantineProvider>,
  );
  return { fakes, user: userEvent.setup(), stop() { flags.stop(); auth.stop(); } };
}

describe('the wizard dialog over a wizard provided with fake calls', () => {
  it('lists the data sources of those services', async () => {
    const { fakes, stop } = renderDialog('data-sources');
    const form = await screen.findByRole('form', { name: 'Data sources' });
    await waitFor(() => expect(within(form).getByRole('combobox', { name: /^Source/ }).textContent).toContain('Partner CRM (Sandbox CRM)'));
    expect(fakes.list).toHaveBeenCalled();
    // the formula itself is read through the same calls
    expect(fakes.get).toHaveBeenCalledWith(FORMULA_ID, expect.anything());
    expect(screen.queryByText('The data sources could not be read')).toBeNull();
    stop();
  });

  it('reads and saves the schedule through those services', async () => {
    const { fakes, user, stop } = renderDialog('scheduling');
    const form = await screen.findByRole('form', { name: 'Scheduling' });
    expect(fakes.getPart).toHaveBeenCalledWith(FORMULA_ID, 'schedule', expect.anything());
    await user.click(within(form).getByRole('button', { name: 'Save and continue' }));
    await screen.findByText('Scheduling has been saved');
    expect(fakes.putPart).toHaveBeenCalledWith(FORMULA_ID, 'schedule', VALID_PARTS.schedule, expect.anything());
    stop();
  });

  it('opens an archived formula read-only, saying so, and saves nothing', async () => {
    const { fakes, user, stop } = renderDialog('scheduling', { ...FORMULA, isDraft: false, status: 'inactive', archivedOn: '2026-11-20T00:00:00Z' });
    const form = await screen.findByRole('form', { name: 'Scheduling' });
    expect(screen.getByText('This formula is archived. Unarchive it to change it.')).toBeTruthy();
    expect(within(form).getByRole('radio', { name: /^Continuously/ })).toHaveProperty('disabled', true);
    expect(within(form).queryByRole('button', { name: 'Save and continue' })).toBeNull();
    await user.click(within(form).getByRole('button', { name: 'Next' }));
    expect(fakes.putPart).not.toHaveBeenCalled();
    stop();
  });
});
