/**
 * Model-based tests of the dry run (src/machines/dryRun.ts) on the review step's dry-run panel
 * (src/views/wizard/steps/review/DryRunPanel.tsx): idle, running, then the result, an empty
 * source, or a failure for each kind of refusal, and running again. Each event is a user action
 * on the keyboard (Dry run, Run again, Hide the dry run) or the answer of a fake dry-run call;
 * each state is what the panel shows. The review step itself is checked to hold the panel, with
 * the samples showing the formula's summary fields first.
 */
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import type { DryRunResult } from '../../src/domain/api/formulas.ts';
import type { FormulaPartName } from '../../src/domain/formula/parts.ts';
import { useActorRef } from '@xstate/react';
import { dryRunMachine, runDryRunWith, type DryRunEvent } from '../../src/machines/dryRun.ts';
import type { StepCalls } from '../../src/machines/wizardSteps.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { DryRunPanel, type DryRunPanelProps } from '../../src/views/wizard/steps/review/DryRunPanel.tsx';
import { ReviewStep } from '../../src/views/wizard/steps/ReviewStep.tsx';
import { startStepEditor } from '../support/stepEditors.ts';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const FORMULA_ID = '8d1f6b2a-5c3e-4f70-9a21-0b7e6c5d4f31';
const end = (dataSourceId: string, system: 'sftp' | 'sandbox-crm', displayName: string, object: string) =>
  ({ dataSourceId, object, settings: {}, system, displayName, hasAdditionalSettings: false });
const FORMULA: FormulaView = {
  id: FORMULA_ID, name: 'Spring appeal', isDraft: true, usesFileUpload: false,
  sourceDataSource: end('partner-sftp', 'sftp', 'Partner SFTP', 'supporters.csv'),
  firstDestinationDataSource: end('sandbox', 'sandbox-crm', 'Sandbox CRM', 'constituents'),
  sampleUploadId: null, status: 'inactive', jobStatus: null, needsReprocess: false, archivedOn: null, parts: [], createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-01T00:00:00Z',
};

/** Twelve supporters: some new, some matched, one ambiguous, one omitted, one failing a validation rule. */
const HELD: DryRunResult = {
  examined: 12, autosend: false,
  byBucket: { 'new': 4, 'one-to-one-match': 5, 'one-to-many-match': 1, 'formula-exception': 1, 'validation-exception/Bad e-mail': 1 },
  byOutcome: { create: 3, update: 5, hold: 2, omit: 1, exception: 1 },
  samples: [
    {
      sourceKey: 'supporters.csv#2', bucket: 'new', customBucket: null, state: 'ready', outcome: 'create', reason: null, score: null,
      transformed: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.org', phone: '0161 496 0000' }, candidates: [],
    },
    {
      sourceKey: 'supporters.csv#3', bucket: 'one-to-one-match', customBucket: null, state: 'ready', outcome: 'update', reason: null, score: 96,
      transformed: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.org' }, candidates: [{ id: 'c-17', score: 96, reasons: ['Same e-mail', 'Same last name'] }],
    },
    {
      sourceKey: 'supporters.csv#4', bucket: 'one-to-many-match', customBucket: null, state: 'needs-attention', outcome: 'hold', reason: 'Several candidates', score: 72,
      transformed: { firstName: 'John', lastName: 'Smith', email: null },
      candidates: [{ id: 'c-3', score: 70, reasons: ['Same last name and phone'] }, { id: 'c-4', score: 72, reasons: ['Same last name and postal code'] }],
    },
    {
      sourceKey: 'supporters.csv#5', bucket: 'new', customBucket: null, state: 'omitted', outcome: 'omit', reason: 'Omitted by rule 1', score: null,
      transformed: { firstName: 'Test', lastName: 'Test', email: 'test@example.org' }, candidates: [],
    },
    {
      sourceKey: 'supporters.csv#6', bucket: 'validation-exception', customBucket: 'Bad e-mail', state: 'failed', outcome: 'exception', reason: 'email must be an e-mail address', score: null,
      transformed: { firstName: 'Alan', lastName: 'Turing', email: 'alan-at-example' }, candidates: [],
    },
  ],
};
/** The same formula sending Ready records at once; only new records. */
const SENT: DryRunResult = {
  examined: 1, autosend: true, byBucket: { 'new': 1 }, byOutcome: { create: 1, update: 0, hold: 0, omit: 0, exception: 0 },
  samples: [HELD.samples[0]!],
};
const EMPTY: DryRunResult = { examined: 0, autosend: false, byBucket: {}, byOutcome: { create: 0, update: 0, hold: 0, omit: 0, exception: 0 }, samples: [] };

const problem = (status: number, p: Record<string, unknown>) => new ApiError(status, { status, ...p }, { silent: true });
/** One refusal of each kind: what the user reads for it. */
const REFUSALS = [
  {
    error: problem(422, { title: 'formula-incomplete', detail: 'The formula has no Record Match Search.', missing: ['matching'] }),
    title: 'The formula is not complete yet.', text: 'The formula has no Record Match Search.',
  },
  {
    error: problem(422, { title: 'connection-failed', code: 'clientdatasource-connection-failed', detail: 'The SFTP server refused the user name and password.' }),
    title: 'Connection Failed', text: 'Code: clientdatasource-connection-failed',
  },
  {
    error: problem(502, { title: 'connection-error', code: 'formula-connection-error', detail: 'sftp.partner.org did not answer.' }),
    title: 'Connection Error', text: 'Code: formula-connection-error',
  },
  {
    error: problem(0, { title: 'network', detail: 'Failed to fetch' }),
    title: 'A server error occured. Please try again later.', text: 'The Tributary server could not be reached.',
  },
];

type Call = { formulaId: string; limit: number | undefined };
type Event = DryRunEvent
  | { type: 'xstate.done.actor.runDryRun'; output: DryRunResult }
  | { type: 'xstate.error.actor.runDryRun'; error: unknown };
type Snap = SnapshotFrom<typeof dryRunMachine>;

const done = (output: DryRunResult): Event => ({ type: 'xstate.done.actor.runDryRun', output });
const refused = (n: number): Event => ({ type: 'xstate.error.actor.runDryRun', error: REFUSALS[n]!.error });
const START: Event = { type: 'run.start' };
const DISMISS: Event = { type: 'run.dismiss' };
const EVENTS: Event[] = [START, DISMISS, done(HELD), done(SENT), done(EMPTY), ...REFUSALS.map((_, n) => refused(n))];

/** each result and each kind of refusal is a state of its own, so each is reached */
const serializeState = (s: Snap) => JSON.stringify([s.value, s.context.result?.examined ?? null, s.context.failure?.code ?? s.context.failure?.kind ?? null]);

const model = testModel<typeof dryRunMachine, Event>(dryRunMachine, {
  input: { formulaId: FORMULA_ID },
  events: EVENTS,
  serializeState,
  serializeEvent: (e) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}:${v.problem.code ?? v.problem.title}` : v)),
});

// ------------------------------------------------------------------------------------ the view

interface Rendered { fake: FakeCall<Call, DryRunResult>; user: ReturnType<typeof userEvent.setup>; onGoTo: ReturnType<typeof vi.fn> }

function servicesWith(fake: FakeCall<Call, DryRunResult>, parts: Partial<Record<FormulaPartName, unknown>> = {}): StepCalls {
  return {
    formulas: {
      dryRun: (formulaId: string, body: { limit?: number } = {}) => fake.call({ formulaId, limit: body.limit }),
      get: async () => ({ ...FORMULA, parts: Object.keys(parts) }),
      getPart: async (_id: string, part: FormulaPartName) => parts[part] ?? null,
    },
    integrations: { objects: async () => ({ objects: [], refreshedOn: null }) },
  } as unknown as StepCalls;
}

/** the panel over a dry run of this machine whose call goes through the fake (as the review step's editor runs it over the wizard's calls) */
function Panel({ machine, fake, ...props }: Omit<DryRunPanelProps, 'dryRun'> & { machine: typeof dryRunMachine; fake: FakeCall<Call, DryRunResult> }) {
  const dryRun = useActorRef(machine.provide({ actors: { runDryRun: runDryRunWith(servicesWith(fake).formulas) } }), { input: { formulaId: props.formula.id } });
  return <DryRunPanel {...props} dryRun={dryRun} />;
}

const panel = () => within(screen.getByTestId('dry-run'));
const startButton = () => panel().getByRole('button', { name: /^(Dry run|Run again)$/ });
/** what a keyboard user does: move to the button and press Enter */
async function press(user: Rendered['user'], button: HTMLElement) {
  act(() => button.focus());
  await user.keyboard('{Enter}');
}
const rowsOf = (table: HTMLElement) => within(table).getAllByRole('row').map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent));

function expectNothingSettled() {
  expect(panel().queryByTestId('dry-run-outcome')).toBeNull();
  expect(panel().queryByRole('alert')).toBeNull();
  expect(panel().queryByRole('table')).toBeNull();
  expect(panel().queryByRole('button', { name: 'Hide the dry run' })).toBeNull();
}

async function expectSettled() {
  const outcome = await panel().findByTestId('dry-run-outcome');
  expect(startButton().textContent).toBe('Run again');
  expect(startButton().hasAttribute('data-loading')).toBe(false);
  expect(panel().getByRole('button', { name: 'Hide the dry run' })).toBeTruthy();
  expect(panel().queryByTestId('dry-run-running')).toBeNull();
  // the keyboard's place moves on to what came of the run
  await waitFor(() => expect(document.activeElement).toBe(outcome));
  return outcome;
}

function expectHeld(outcome: HTMLElement) {
  const o = within(outcome);
  expect(o.getByTestId('dry-run-examined').textContent).toBe('12 records examined. Nothing was sent or kept.');
  expect(o.getByTestId('dry-run-autosend').textContent).toBe('Ready records would be held for review: nothing goes to Sandbox CRM until someone sends it.');
  expect(rowsOf(o.getByRole('table', { name: 'By outcome' }))).toEqual([
    ['Would be created', '3'], ['Would be updated', '5'], ['Held for review', '2'], ['Omitted', '1'], ['Exceptions', '1'],
  ]);
  expect(rowsOf(o.getByRole('table', { name: 'By bucket' }))).toEqual([
    ['New', '4'], ['One-to-one match', '5'], ['Multiple matches', '1'], ['Formula exception', '1'], ['Bad e-mail', '1'],
  ]);
  // a table of samples per outcome: the key transformed values, bucket, reason and best score with its match reasons
  const head = ['Record', 'email', 'lastName', 'firstName', 'Bucket', 'Reason', 'Best score'];
  expect(rowsOf(o.getByRole('table', { name: 'Would be created: 1 of 3' }))).toEqual([head, ['supporters.csv, line 2', 'ada@example.org', 'Lovelace', 'Ada', 'New', '—', 'No match']]);
  expect(rowsOf(o.getByRole('table', { name: 'Would be updated: 1 of 5' }))).toEqual([head, ['supporters.csv, line 3', 'grace@example.org', 'Hopper', 'Grace', 'One-to-one match', '—', '96Same e-mail, Same last name']]);
  expect(rowsOf(o.getByRole('table', { name: 'Held for review: 1 of 2' }))).toEqual([head, ['supporters.csv, line 4', '—', 'Smith', 'John', 'Multiple matches', 'Several candidates', '72Same last name and postal code2 candidates']]);
  expect(rowsOf(o.getByRole('table', { name: 'Omitted: 1 of 1' }))).toEqual([head, ['supporters.csv, line 5', 'test@example.org', 'Test', 'Test', 'New', 'Omitted by rule 1', 'No match']]);
  expect(rowsOf(o.getByRole('table', { name: 'Exceptions: 1 of 1' }))).toEqual([head, ['supporters.csv, line 6', 'alan-at-example', 'Turing', 'Alan', 'Bad e-mail', 'email must be an e-mail address', 'No match']]);
  // each wide table can be reached and scrolled with the keyboard
  for (const name of ['Would be created', 'Would be updated', 'Held for review', 'Omitted', 'Exceptions']) {
    expect(o.getByRole('group', { name: `Sample: ${name}` }).getAttribute('tabindex')).toBe('0');
  }
}

function expectSent(outcome: HTMLElement) {
  const o = within(outcome);
  expect(o.getByTestId('dry-run-examined').textContent).toBe('1 record examined. Nothing was sent or kept.');
  expect(o.getByTestId('dry-run-autosend').textContent).toBe('Ready records would be sent to Sandbox CRM automatically.');
  expect(rowsOf(o.getByRole('table', { name: 'By outcome' }))).toEqual([
    ['Would be created', '1'], ['Would be updated', '0'], ['Held for review', '0'], ['Omitted', '0'], ['Exceptions', '0'],
  ]);
  expect(rowsOf(o.getByRole('table', { name: 'By bucket' }))).toEqual([['New', '1']]);
  expect(o.getAllByRole('table').map((t) => t.querySelector('caption')!.textContent)).toEqual(['By outcome', 'By bucket', 'Would be created: 1 of 1']);
}

function params({ fake, user }: Rendered) {
  return {
    states: {
      idle: async () => {
        expect(startButton().textContent).toBe('Dry run');
        expect(startButton().hasAttribute('disabled')).toBe(false);
        expect(panel().getByText(/Puts the first 100 records of Partner SFTP through the whole formula/).textContent).toContain('Nothing is sent to Sandbox CRM and nothing is kept');
        expect(panel().queryByTestId('dry-run-running')).toBeNull();
        expectNothingSettled();
      },
      running: async () => {
        const status = await panel().findByRole('status');
        expect(status.textContent).toBe('Running the formula over the first 100 records of Partner SFTP… This can take a few seconds.');
        expect(startButton().getAttribute('data-loading')).toBe('true');
        expect(fake.calls.at(-1)).toEqual({ formulaId: FORMULA_ID, limit: 100 });
        expectNothingSettled();
      },
      shown: async (s: Snap) => {
        const outcome = await expectSettled();
        expect(within(outcome).queryByRole('alert')).toBeNull();
        if (s.context.result!.examined === HELD.examined) expectHeld(outcome);
        else expectSent(outcome);
      },
      empty: async () => {
        const outcome = await expectSettled();
        const note = within(outcome).getByTestId('dry-run-empty');
        expect(note.getAttribute('role')).toBe('status');
        expect(note.textContent).toBe('No records to examinePartner SFTP has no records to collect yet, so nothing would be created, updated or held.');
        expect(within(outcome).queryByRole('table')).toBeNull();
      },
      failed: async (s: Snap) => {
        const outcome = await expectSettled();
        const alert = within(outcome).getByRole('alert');
        const expected = REFUSALS.find((r) => r.title === s.context.failure!.title)!;
        expect(alert.textContent).toContain(expected.title);
        expect(alert.textContent).toContain(expected.text);
        expect(within(outcome).queryByRole('table')).toBeNull();
        // what an incomplete formula misses links to its step
        if (expected === REFUSALS[0]) expect(within(within(alert).getByRole('list', { name: 'Missing' })).getByRole('button', { name: 'Record Match Search' })).toBeTruthy();
      },
    },
    events: {
      'run.start': async () => { await press(user, startButton()); },
      'run.dismiss': async () => {
        await press(user, panel().getByRole('button', { name: 'Hide the dry run' }));
        // and the keyboard is back on the button
        await waitFor(() => expect(document.activeElement).toBe(startButton()));
      },
      'xstate.done.actor.runDryRun': ({ event }: { event: { type: string } }) => fake.answer(event),
      'xstate.error.actor.runDryRun': ({ event }: { event: { type: string } }) => fake.answer(event),
    },
  };
}

const view: ModelView<typeof dryRunMachine, Rendered> = {
  render(machine) {
    const fake = fakeCall<Call, DryRunResult>('dryRun');
    const onGoTo = vi.fn();
    render(
      <MantineProvider>
        <Panel formula={FORMULA} customRouting={false} onGoTo={onGoTo} preferredFields={['email', 'lastName']} machine={machine} fake={fake} />
      </MantineProvider>,
    );
    return { fake, user: userEvent.setup(), onGoTo };
  },
  params,
};

// ----------------------------------------------------------------------------------- the paths

const shortest = model.getShortestPaths() as unknown as ModelPath<Snap>[];

/** a path by its events: 'run.start → 12 examined, held', 'run.start → refused: Connection Failed' */
function pathName(path: ModelPath<Snap>): string {
  return path.steps.map((s) => s.event as Event).filter((e) => e.type !== ('xstate.init' as string)).map((e) => {
    if (e.type === 'xstate.done.actor.runDryRun') return `${e.output.examined} examined${e.output.examined ? (e.output.autosend ? ', sent' : ', held') : ''}`;
    if (e.type === 'xstate.error.actor.runDryRun') return `refused: ${REFUSALS.find((r) => r.error === e.error)!.title}`;
    return e.type;
  }).join(' → ');
}

describe('dry run: shortest paths on the review step\'s panel', () => {
  it('reach idle, running, both results, the empty source and every kind of refusal', () => {
    const reached = reachedStates(shortest, serializeState as never);
    const key = (value: string, examined: number | null = null, failure: string | null = null) => JSON.stringify([value, examined, failure]);
    for (const k of [key('idle'), key('running'), key('shown', 12), key('shown', 1), key('empty', 0)]) expect(reached.has(k), k).toBe(true);
    for (const f of ['incomplete', 'clientdatasource-connection-failed', 'formula-connection-error', 'other']) expect(reached.has(key('failed', null, f)), f).toBe(true);
  });
  it.each(named(shortest, pathName))('%s', async (_d, path) => runPath(path, dryRunMachine, view));
});

describe('dry run: running again', () => {
  const journeys: [string, Event[]][] = [
    ['a result, then again on a source now empty', [START, done(HELD), START, done(EMPTY)]],
    ['an incomplete formula, then again once complete', [START, refused(0), START, done(SENT)]],
    ['an empty source hidden, then a source that cannot be reached', [START, done(EMPTY), DISMISS, START, refused(1)]],
    ['an outage, then again with Ready records held', [START, refused(2), START, done(HELD), DISMISS]],
  ];
  it.each(journeys)('%s', async (_d, events) => {
    const [path] = model.getPathsFromEvents(events);
    expect(path!.steps.length).toBe(events.length + 1);
    await runPath(path as unknown as ModelPath<Snap>, dryRunMachine, view);
  });

  it('links what an incomplete formula misses to its step', async () => {
    const rendered = view.render(dryRunMachine, shortest[0]!) as Rendered;
    await press(rendered.user, startButton());
    await rendered.fake.answer(refused(0));
    const missing = await panel().findByRole('list', { name: 'Missing' });
    await rendered.user.click(within(missing).getByRole('button', { name: 'Record Match Search' }));
    expect(rendered.onGoTo).toHaveBeenCalledWith('matching');
  });
});

describe('a file-upload formula', () => {
  it('puts its sample file through, and says when the file has no rows', async () => {
    const fake = fakeCall<Call, DryRunResult>('dryRun');
    render(
      <MantineProvider>
        <Panel formula={{ ...FORMULA, usesFileUpload: true }} customRouting={false} onGoTo={vi.fn()} machine={dryRunMachine} fake={fake} />
      </MantineProvider>,
    );
    const user = userEvent.setup();
    expect(panel().getByText(/^Puts the rows of the sample file through the whole formula/)).toBeTruthy();
    await press(user, startButton());
    expect((await panel().findByRole('status')).textContent).toBe('Running the formula over the rows of the sample file… This can take a few seconds.');
    await fake.answer(done(EMPTY));
    expect((await panel().findByTestId('dry-run-empty')).textContent).toContain('The sample file has no rows');
  });
});

describe('the suite can fail', () => {
  it('finds a machine that cannot tell an empty source from a result', async () => {
    const throughShown = shortest.filter((p) => [...p.steps.map((s) => s.state), p.state].some((s) => s.matches('shown')));
    const throughEmpty = shortest.filter((p) => [...p.steps.map((s) => s.state), p.state].some((s) => s.matches('empty')));
    // never a result: every path to one shows the empty note instead
    await expectBrokenGuardToFail(dryRunMachine, 'hasExaminedRecords', { paths: throughShown, view, every: true });
    // always a result: an empty source shows tables of nothing
    await expectBrokenGuardToFail(dryRunMachine, 'hasExaminedRecords', { paths: throughEmpty, view, holds: true, every: true });
  });
});

// --------------------------------------------------------------------------- in the review step

describe('the review step', () => {
  it('holds the dry run, its samples showing the summary fields first', async () => {
    const fake = fakeCall<Call, DryRunResult>('dryRun');
    const onGoTo = vi.fn();
    const services = servicesWith(fake, VALID_PARTS);
    // the step reads the review through its editor, over the same fake services
    const editor = startStepEditor('review', FORMULA, services, { onSaved: vi.fn(), onDirtyChange: vi.fn() });
    render(
      <MantineProvider>
        <ReviewStep
          step="review" formula={FORMULA} customRouting={false} canEdit editor={editor}
          onDirtyChange={vi.fn()} onSaved={vi.fn()} onFormulaChange={vi.fn()} onBack={vi.fn()} onGoTo={onGoTo}
        />
      </MantineProvider>,
    );
    const user = userEvent.setup();
    await screen.findByTestId('formula-summary');
    // nothing runs until asked
    expect(fake.calls).toEqual([]);
    await press(user, startButton());
    expect(await fake.called()).toEqual({ formulaId: FORMULA_ID, limit: 100 });
    await act(async () => fake.resolve(HELD));
    const table = await panel().findByRole('table', { name: 'Would be created: 1 of 3' });
    expect(rowsOf(table)[0]).toEqual(['Record', 'firstName', 'lastName', 'email', 'Bucket', 'Reason', 'Best score']);
    // the summary's sections are still the only regions
    expect(screen.getAllByRole('region').every((r) => r.hasAttribute('data-summary'))).toBe(true);
  });
});
