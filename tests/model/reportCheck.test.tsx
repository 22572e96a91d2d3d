/**
 * Model-based tests of the Salesforce report check (src/machines/reportCheck.ts: idle, checking,
 * valid, invalid) on the wizard's formula type step for a Salesforce source: an id is typed and
 * checked with Check report; one not of a report's form is refused at once, another is asked of
 * Salesforce (a fake the paths answer). A broken form guard makes the paths that check fail.
 */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { reportCheckMachine, type ReportCheckEvent, type ReportFound } from '../../src/machines/reportCheck.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { StepCalls } from '../../src/machines/wizardSteps.ts';
import { FormulaTypeStep } from '../../src/views/wizard/steps/FormulaTypeStep.tsx';
import { startStepEditor } from '../support/stepEditors.ts';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const SALESFORCE_ID = '44444444-4444-4444-8444-444444444444';
const CRM_ID = '22222222-2222-4222-8222-222222222222';
const FORMULA: FormulaView = {
  id: '3f6c8a52-0c1e-4d1a-9a57-6c0f8e2b7d10', name: 'Spring appeal', isDraft: true, usesFileUpload: false,
  sourceDataSource: { dataSourceId: SALESFORCE_ID, object: 'Contact', settings: { object: 'Contact' }, system: 'salesforce', displayName: 'Org Salesforce', hasAdditionalSettings: true },
  firstDestinationDataSource: { dataSourceId: CRM_ID, object: 'constituents', settings: {}, system: 'sandbox-crm', displayName: 'Sandbox CRM', hasAdditionalSettings: false },
  sampleUploadId: null, status: 'inactive', jobStatus: null, needsReprocess: false, archivedOn: null, parts: [], createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-01T00:00:00Z',
};
const REPORT_ID = '00O5g00000AbCdE';
const FOUND: ReportFound = { name: 'Spring donors', dateFilterColumn: 'CreatedDate' };
const NO_DATE_FILTER = new ApiError(422, { status: 422, title: 'report-date-filter' }, { silent: true });

type Event = ReportCheckEvent | { type: 'xstate.done.actor.checkReport'; output: ReportFound } | { type: 'xstate.error.actor.checkReport'; error: unknown };
type Snap = SnapshotFrom<typeof reportCheckMachine>;
const EVENTS: Event[] = [
  { type: 'report.check', id: 'abc' },
  { type: 'report.check', id: REPORT_ID },
  { type: 'xstate.done.actor.checkReport', output: FOUND },
  { type: 'xstate.error.actor.checkReport', error: NO_DATE_FILTER },
];
const TRAVERSAL = {
  input: { dataSourceId: SALESFORCE_ID },
  serializeState: (s: unknown) => JSON.stringify([(s as Snap).value, (s as Snap).context.id, (s as Snap).context.message]),
  serializeEvent: (e: unknown) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}:${v.problem.title}` : v)),
};
const model = testModel<typeof reportCheckMachine, Event>(reportCheckMachine, { ...TRAVERSAL, events: EVENTS });

const services = {
  formulas: { update: vi.fn(), get: vi.fn(), getPart: vi.fn(async () => null), putPart: vi.fn() },
  integrations: {
    list: vi.fn(async () => []),
    objects: vi.fn(async (id: string) => ({ objects: id === SALESFORCE_ID ? [{ name: 'Contact', label: 'Contacts' }] : [{ name: 'constituents', label: 'Constituents' }], refreshedOn: null })),
    refreshObjects: vi.fn(),
    fields: vi.fn(),
    checkSalesforceReport: vi.fn(),
  },
} as unknown as StepCalls;

interface Rendered { fake: FakeCall<{ dataSourceId: string; reportId: string }, ReportFound>; user: ReturnType<typeof userEvent.setup> }

const input = () => screen.getByRole('textbox', { name: /^Report ID/ }) as HTMLInputElement;
const checkButton = () => screen.getByRole('button', { name: 'Check report' });
const errorOf = () => {
  const id = input().getAttribute('aria-describedby')?.split(' ').find((x) => x.includes('error'));
  return id ? document.getElementById(id)?.textContent ?? null : null;
};

const view: ModelView<typeof reportCheckMachine, Rendered> = {
  async render(machine) {
    const fake: Rendered['fake'] = fakeCall('checkReport');
    const props = {
      step: 'formula-types' as const, formula: FORMULA, customRouting: false, canEdit: true,
      onDirtyChange: vi.fn(), onSaved: vi.fn(), onFormulaChange: vi.fn(), onBack: vi.fn(), onGoTo: vi.fn(),
    };
    // the step saves through its editor, over the same fake services
    const editor = startStepEditor('formula-types', FORMULA, services, props);
    render(
      <MantineProvider>
        <FormulaTypeStep {...props} editor={editor} reportCheck={machine.provide({ actors: { checkReport: fake.logic } })} />
      </MantineProvider>,
    );
    const user = userEvent.setup();
    await user.click(await screen.findByRole('checkbox', { name: /Read the rows of a report/ }));
    return { fake, user };
  },
  params: ({ fake, user }) => ({
    states: {
      idle: async () => {
        expect(errorOf()).toBeNull();
        expect(screen.queryByRole('status')).toBeNull();
        expect(fake.calls).toHaveLength(0);
      },
      checking: async (s: Snap) => {
        await waitFor(() => expect(checkButton().getAttribute('data-loading')).not.toBeNull());
        expect(await fake.called()).toEqual({ dataSourceId: SALESFORCE_ID, reportId: s.context.id });
      },
      valid: async () => {
        expect((await screen.findByRole('status')).textContent).toBe('Spring donors: rows are read by CreatedDate.');
        expect(errorOf()).toBeNull();
      },
      invalid: async (s: Snap) => {
        await waitFor(() => expect(errorOf()).toBe(s.context.message));
        expect(input().getAttribute('aria-invalid')).toBe('true');
        expect(checkButton().getAttribute('data-loading')).toBeNull();
      },
    },
    events: {
      'report.check': async ({ event }) => {
        const id = (event as unknown as ReportCheckEvent).id;
        if (input().value !== id) {
          await user.clear(input());
          await user.type(input(), id);
        }
        await user.click(checkButton());
      },
      'xstate.done.actor.checkReport': ({ event }) => fake.answer(event),
      'xstate.error.actor.checkReport': ({ event }) => fake.answer(event),
    },
  }),
};

const shortest = model.getShortestPaths() as unknown as ModelPath<Snap>[];
const pathName = (p: ModelPath<Snap>) => p.steps.map((s) => (s.event.type === 'report.check' ? `check ${(s.event as unknown as ReportCheckEvent).id}` : s.event.type)).join(' → ');

describe('report check machine: shortest paths on the formula type step', () => {
  it('reaches idle, checking, valid and invalid (by its form, and by Salesforce)', () => {
    expect([...reachedStates(shortest)].sort()).toEqual(['"checking"', '"idle"', '"invalid"', '"valid"']);
    expect(shortest.filter((p) => p.state.matches('invalid')).map((p) => p.state.context.message).sort()).toEqual(['Add Date Filter', 'Invalid Report ID']);
  });
  it.each(named(shortest, pathName))('%s', async (_d, path) => runPath(path, reportCheckMachine, view));
});

describe('the suite can fail', () => {
  it('finds a report check whose form guard is broken on purpose', async () => {
    const asking = shortest.filter((p) => p.steps.some((s) => s.state.matches('checking')) || p.state.matches('checking'));
    await expectBrokenGuardToFail(reportCheckMachine, 'isReportId', { paths: asking, view, every: true });
  });
});
