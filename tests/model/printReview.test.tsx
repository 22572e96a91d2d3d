/**
 * Model-based tests of the printed formula review (src/machines/printReview.ts: loading, reading,
 * shown, failed, unavailable) on its page (/{formulaId}/print-formula-review): the formula is
 * loaded, then its review (parts and objects' labels) read; a formula that is not there or cannot
 * be loaded says so, a review that cannot be read says why and reads it again with Try again. The
 * two reads are fakes the paths answer. A broken not-found guard makes the paths that meet a
 * missing formula fail.
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { NOT_FOUND, NOT_LOADED, printReviewMachine, type PrintReviewEvent } from '../../src/machines/printReview.ts';
import { StepUnread, type ReviewData } from '../../src/machines/wizardSteps.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { PrintFormulaReviewPage } from '../../src/views/wizard/PrintFormulaReview.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const FORMULA_ID = '3f6c8a52-0c1e-4d1a-9a57-6c0f8e2b7d10';
const CRM_ID = '22222222-2222-4222-8222-222222222222';
const crm = (object: string) => ({ dataSourceId: CRM_ID, object, settings: {}, system: 'sandbox-crm' as const, displayName: 'Partner CRM', hasAdditionalSettings: false });
const FORMULA: FormulaView = {
  id: FORMULA_ID, name: 'Spring appeal', isDraft: true, usesFileUpload: false, sourceDataSource: crm('supporters'), firstDestinationDataSource: crm('constituents'),
  sampleUploadId: null, status: 'inactive', jobStatus: null, needsReprocess: false, archivedOn: null, parts: ['schedule', 'matching'], createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-01T00:00:00Z',
};
const REVIEW: ReviewData = {
  parts: { schedule: VALID_PARTS.schedule, matching: { ...VALID_PARTS.matching, autoPick: [{ fields: ['email'], exact: true, minScore: 90 }] } },
  objectLabels: { [`${CRM_ID}/supporters`]: 'Supporters (kept list)' },
  fieldLabels: { email: 'E-mail address' },
};
const MISSING = new ApiError(404, { status: 404, title: 'not-found' }, { silent: true });
const DOWN = new ApiError(502, { status: 502, title: 'connection-error' }, { silent: true });
const UNREAD = new StepUnread(['The formula service did not answer.']);

type Event = PrintReviewEvent
  | { type: 'xstate.done.actor.loadFormula'; output: FormulaView }
  | { type: 'xstate.error.actor.loadFormula'; error: unknown }
  | { type: 'xstate.done.actor.readReview'; output: ReviewData }
  | { type: 'xstate.error.actor.readReview'; error: unknown };
type Snap = SnapshotFrom<typeof printReviewMachine>;

const EVENTS: Event[] = [
  { type: 'xstate.done.actor.loadFormula', output: FORMULA },
  { type: 'xstate.error.actor.loadFormula', error: MISSING },
  { type: 'xstate.error.actor.loadFormula', error: DOWN },
  { type: 'xstate.done.actor.readReview', output: REVIEW },
  { type: 'xstate.error.actor.readReview', error: UNREAD },
  { type: 'retry' },
];
const serializeState = (s: Snap) => JSON.stringify([s.value, s.context.error]);
const model = testModel<typeof printReviewMachine, Event>(printReviewMachine, {
  input: { formulaId: FORMULA_ID },
  events: EVENTS,
  serializeState,
  serializeEvent: (e) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}` : v instanceof StepUnread ? 'unread' : v)),
});

interface Rendered {
  loadFormula: FakeCall<{ formulaId: string }, FormulaView>;
  readReview: FakeCall<{ formula: FormulaView }, ReviewData>;
  user: ReturnType<typeof userEvent.setup>;
}

const heading = () => screen.getByRole('heading', { level: 1 }).textContent;
const printButton = () => screen.getByRole('button', { name: 'Print' });
const loadingShown = () => !!screen.queryByLabelText('Loading the review');

const view: ModelView<typeof printReviewMachine, Rendered> = {
  render(machine) {
    const loadFormula: Rendered['loadFormula'] = fakeCall('loadFormula');
    const readReview: Rendered['readReview'] = fakeCall('readReview');
    const logic = machine.provide({ actors: { loadFormula: loadFormula.logic, readReview: readReview.logic } });
    const router = createMemoryRouter([{ path: '/:formulaId/print-formula-review', element: <PrintFormulaReviewPage logic={logic} /> }], {
      initialEntries: [`/${FORMULA_ID}/print-formula-review`],
    });
    render(<MantineProvider><RouterProvider router={router} /></MantineProvider>);
    return { loadFormula, readReview, user: userEvent.setup() };
  },
  params: ({ loadFormula, readReview, user }) => ({
    states: {
      loading: async () => {
        // the formula the address names
        expect(await loadFormula.called()).toEqual({ formulaId: FORMULA_ID });
        expect(heading()).toBe('Formula review');
        expect(loadingShown()).toBe(true);
        expect(screen.queryByRole('alert')).toBeNull();
      },
      reading: async () => {
        expect((await readReview.called()).formula.id).toBe(FORMULA_ID);
        await waitFor(() => expect(heading()).toBe('Formula review: Spring appeal'));
        expect(loadingShown()).toBe(true);
        expect(screen.queryByRole('alert')).toBeNull();
        expect(printButton().hasAttribute('disabled')).toBe(true);
      },
      shown: async () => {
        await screen.findByTestId('formula-summary');
        // the objects' labels the review read, and its parts
        expect(screen.getByRole('region', { name: 'Source' }).textContent).toContain('Object: Supporters (kept list)');
        expect(screen.getByRole('region', { name: 'Scheduling' }).textContent).toContain('Weekly on Monday at 06:30 (Europe/London)');
        // destination fields by their labels, and Auto Pick's minimum confidence
        const matching = screen.getByRole('region', { name: 'Record Match Search' }).textContent;
        expect(matching).toContain('Email matches E-mail address');
        expect(matching).toContain('Auto Pick when these fields match exactly: E-mail address (confidence at least 90)');
        expect(loadingShown()).toBe(false);
        expect(screen.queryByRole('alert')).toBeNull();
        expect(printButton().hasAttribute('disabled')).toBe(false);
      },
      failed: async (s: Snap) => {
        const alert = await screen.findByRole('alert');
        expect(alert.textContent).toContain('The review could not be read');
        expect(alert.textContent).toContain(s.context.error!);
        expect(within(alert).getByRole('button', { name: 'Try again' })).toBeTruthy();
        expect(heading()).toBe('Formula review: Spring appeal');
        expect(screen.queryByTestId('formula-summary')).toBeNull();
        expect(printButton().hasAttribute('disabled')).toBe(true);
      },
      unavailable: async (s: Snap) => {
        const alert = await screen.findByRole('alert');
        expect(alert.textContent).toContain(s.context.error!);
        // nothing to read again: the formula is not there
        expect(within(alert).queryByRole('button', { name: 'Try again' })).toBeNull();
        expect(heading()).toBe('Formula review');
        expect(loadingShown()).toBe(false);
        expect(screen.queryByTestId('formula-summary')).toBeNull();
      },
    },
    events: {
      retry: async () => { await user.click(within(screen.getByRole('alert')).getByRole('button', { name: 'Try again' })); },
      'xstate.done.actor.loadFormula': ({ event }: { event: { type: string } }) => loadFormula.answer(event),
      'xstate.error.actor.loadFormula': ({ event }: { event: { type: string } }) => loadFormula.answer(event),
      'xstate.done.actor.readReview': ({ event }: { event: { type: string } }) => readReview.answer(event),
      'xstate.error.actor.readReview': ({ event }: { event: { type: string } }) => readReview.answer(event),
    },
  }),
};

const shortest = model.getShortestPaths() as unknown as ModelPath<Snap>[];

describe('printed review: shortest paths on its page', () => {
  it('reaches loading, reading, shown, failed, and unavailable for a missing formula and for one that could not be loaded', () => {
    const reached = reachedStates(shortest, serializeState as never);
    for (const value of ['loading', 'reading', 'shown']) expect(reached.has(JSON.stringify([value, null])), value).toBe(true);
    expect(reached.has(JSON.stringify(['failed', 'The formula service did not answer.']))).toBe(true);
    expect(reached.has(JSON.stringify(['unavailable', NOT_FOUND]))).toBe(true);
    expect(reached.has(JSON.stringify(['unavailable', NOT_LOADED]))).toBe(true);
  });
  it.each(named(shortest))('%s', async (_d, path) => runPath(path, printReviewMachine, view));
});

describe('printed review: reading again', () => {
  it('a review that could not be read is read again with Try again, and shown', async () => {
    const [path] = model.getPathsFromEvents([EVENTS[0]!, EVENTS[4]!, { type: 'retry' }, EVENTS[3]!]);
    expect(path!.state.matches('shown')).toBe(true);
    await runPath(path as unknown as ModelPath<Snap>, printReviewMachine, view);
  });
});

describe('the suite can fail', () => {
  it('finds a machine that cannot tell a missing formula from one that could not be loaded', async () => {
    const missing = shortest.filter((p) => p.state.matches('unavailable') && p.state.context.error === NOT_FOUND);
    await expectBrokenGuardToFail(printReviewMachine, 'isNotFound', { paths: missing, view, every: true });
  });
});
