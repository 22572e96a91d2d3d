/**
 * 'Upload a file' on a formula's card (the Data Queue; All Formulas' rows use the same action,
 * src/views/formulas/FormulaLive.tsx): offered only for a live file-upload formula and a role the
 * upload endpoint lets upload, and it opens the upload screen in a dialog titled for the formula.
 */
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import { flatFileService } from '../../src/domain/api/flatFile.ts';
import { can, policiesFor, ROLES, type Role } from '../../src/domain/roles.ts';
import { jobStatusMachine } from '../../src/machines/jobStatus.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import { preloadModal } from '../../src/ui/LazyModal.tsx';
import { FormulaCard } from '../../src/views/dataQueue/FormulaCard.tsx';

afterEach(() => cleanup());

const formula = (over: Partial<FormulaView>): FormulaView => ({
  id: 'f0f0f0f0-0000-4000-8000-000000000001', name: 'Walk-in donations', isDraft: false, usesFileUpload: true,
  sourceDataSource: null, firstDestinationDataSource: null, sampleUploadId: null,
  status: 'active', jobStatus: 'scheduled', needsReprocess: false, archivedOn: null, parts: [], createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-02T00:00:00Z',
  ...over,
});

function renderCard(f: FormulaView, role: Role) {
  const policies = policiesFor([role]);
  // no live status: the card shows the status the list gave
  const job = createActor(jobStatusMachine.provide({ actors: { statusStream: fromCallback(() => () => {}) } as never }), { input: { policies } }).start();
  const card = (
    <FormulaCard
      formula={f} counts={{}} jobState={job.getSnapshot()} job={job} policies={policies} mayEdit={false}
      editTo={{ pathname: '/data-queue', search: '' }}
      arrangement={{ tab: null, otherTabs: [], busy: false, place: () => {}, remove: () => {} }}
    />
  );
  const router = createMemoryRouter([{ path: '*', element: <ul>{card}</ul> }], { initialEntries: ['/data-queue'] });
  render(<MantineProvider><RouterProvider router={router} /></MantineProvider>);
  return job;
}

const uploadButton = () => screen.queryByRole('button', { name: 'Upload a file: Walk-in donations' });

/** the policy the upload endpoint checks, as the server reads it from the contract */
const { access } = flatFileService.endpoints.upload;
const mayUpload = (role: Role) => typeof access === 'object' && can(policiesFor([role]), access.resource, access.action);

const CASES = ROLES.flatMap((role) => [
  { role, usesFileUpload: true, isDraft: false },
  { role, usesFileUpload: true, isDraft: true },
  { role, usesFileUpload: false, isDraft: false },
]);

describe("'Upload a file' on a formula's card", () => {
  it('is for some roles and not others', () => {
    expect(ROLES.filter(mayUpload)).toEqual(['Administrator', 'Power User', 'Formula Producer']);
  });

  it.each(CASES)('$role, file upload $usesFileUpload, draft $isDraft', ({ role, usesFileUpload, isDraft }) => {
    const job = renderCard(formula({ usesFileUpload, isDraft }), role);
    const offered = usesFileUpload && !isDraft && mayUpload(role);
    const actions = screen.getByRole('group', { name: 'Actions for Walk-in donations' });
    expect(within(actions).queryByRole('button', { name: 'Upload a file: Walk-in donations' }) !== null).toBe(offered);
    job.stop();
  });

  it('opens the upload screen for the formula in a dialog', async () => {
    await preloadModal();
    const job = renderCard(formula({}), 'Formula Producer');
    expect(screen.queryByRole('dialog')).toBeNull();
    await userEvent.click(uploadButton()!);
    const dialog = await screen.findByRole('dialog', { name: 'Upload a file to Walk-in donations' });
    expect(await within(dialog).findByLabelText('Drop a CSV or Excel file here, or press Enter to choose one')).toBeTruthy();
    expect(within(dialog).getByText(/Walk-in donations processes every row of it/)).toBeTruthy();
    job.stop();
  });
});
