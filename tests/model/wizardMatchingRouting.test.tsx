/**
 * The wizard's matching, routing and custom-routing steps on their own, with fake services: what
 * each loads and pre-fills, what it refuses with SPEC.md section 5's messages (inline and as the
 * save error, saving nothing), and the exact bodies it saves. The steps are forms over one part
 * each (two with autosend), driven the way a user drives them: by label, role and click.
 */
import type { ComponentType } from 'react';
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FieldInfo } from '../../src/domain/api/integrations.ts';
import { ROUTING_OPERATOR_NAMES, ROUTING_OPERATORS } from '../../src/domain/formula/constants.ts';
import type { FormulaPartBody, FormulaPartName } from '../../src/domain/formula/parts.ts';
import { recommendedMatching } from '../../src/domain/formula/recommendedScenarios.ts';
import type { WizardStep } from '../../src/domain/formula/wizard.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { StepProps } from '../../src/views/wizard/step.tsx';
import type { StepCalls } from '../../src/machines/wizardSteps.ts';
import { connectorFor } from '../../src/domain/connectors/catalogue.ts';
import { CustomRoutingStep } from '../../src/views/wizard/steps/CustomRoutingStep.tsx';
import { MatchingStep } from '../../src/views/wizard/steps/MatchingStep.tsx';
import { RoutingStep } from '../../src/views/wizard/steps/RoutingStep.tsx';
import { startStepEditor } from '../support/stepEditors.ts';
import { answeredCall, fakeCall } from '../support/fakeCalls.ts';

beforeAll(() => {
  // jsdom has no document.fonts, which Mantine's autosizing inputs listen to
});
afterEach(() => cleanup());

const FORMULA_ID = '6a0c3f1e-2b7d-4c59-8e10-93d4f5a6b7c8';
const end = (over: Partial<NonNullable<FormulaView['sourceDataSource']>>) => ({
  dataSourceId: 'ds', object: 'constituents', settings: {}, system: 'sandbox-crm' as const, displayName: 'Sandbox CRM', hasAdditionalSettings: false, ...over,
});
const FORMULA: FormulaView = {
  id: FORMULA_ID, name: 'Spring appeal', isDraft: true, usesFileUpload: false,
  sourceDataSource: end({ dataSourceId: 'partner-sftp', object: 'supporters.csv', system: 'sftp', displayName: 'Partner SFTP' }),
  firstDestinationDataSource: end({ dataSourceId: 'sandbox', object: 'constituents', system: 'sandbox-crm', displayName: 'Sandbox CRM' }),
  sampleUploadId: null, status: 'inactive', jobStatus: null, needsReprocess: false, archivedOn: null, parts: [], createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-01T00:00:00Z',
};

const SOURCE_FIELDS: FieldInfo[] = ['First name', 'Last name', 'Email', 'Phone', 'Zip'].map((name) => ({ name, label: name, type: 'string' }));
const DESTINATION_FIELDS: FieldInfo[] = [
  { name: 'lookupId', label: 'Lookup ID', type: 'string', searchable: true },
  { name: 'firstName', label: 'First name', type: 'string', searchable: true },
  { name: 'lastName', label: 'Last name', type: 'string', required: true, searchable: true },
  { name: 'email', label: 'E-mail', type: 'email', searchable: true },
  { name: 'phone', label: 'Phone', type: 'phone', searchable: true },
  { name: 'postalCode', label: 'Postal code', type: 'string', searchable: true },
  { name: 'addressLine2', label: 'Address line 2', type: 'string' },
];

interface PartCall { id: string; part: FormulaPartName; body?: unknown }

interface Setup {
  step: WizardStep;
  Step: ComponentType<StepProps>;
  parts?: Partial<{ [P in FormulaPartName]: FormulaPartBody[P] }>;
  formula?: FormulaView;
  canEdit?: boolean;
  /** the getPart call refuses */
  partFails?: boolean;
  /** true: the system is down; an error: the service's answer */
  fieldsFail?: boolean | Error;
  /** a fake putPart that waits for the test's answer */
  putPart?: ReturnType<typeof fakeCall<PartCall, unknown>>;
}

function renderStep({ step, Step, parts = {}, formula: given = FORMULA, canEdit = true, partFails = false, fieldsFail = false, putPart }: Setup) {
  // the formula lists the parts it has (a part that cannot be read is one it has): the steps read only those
  const listed = partFails ? ['matching', 'routing', 'autosend'] as FormulaPartName[] : Object.keys(parts) as FormulaPartName[];
  const formula: FormulaView = { ...given, parts: [...new Set([...given.parts, ...listed])] };
  const getPart = answeredCall<PartCall, unknown>(({ part }) => {
    if (partFails) throw Object.assign(new Error('down'), { status: 503 });
    return parts[part] ?? null;
  });
  const savedParts = answeredCall<PartCall, unknown>(({ body }) => body);
  const fields = answeredCall<{ dataSourceId: string; object: string }, { object: string; fields: FieldInfo[] }>(({ dataSourceId, object }) => {
    if (fieldsFail) throw fieldsFail === true ? new Error('down') : fieldsFail;
    return { object, fields: dataSourceId === 'sandbox' ? DESTINATION_FIELDS : SOURCE_FIELDS };
  });
  const sample = answeredCall<string, { fields: string[]; rows: [] }>(() => ({ fields: ['E-mail address', 'Surname', 'Postcode'], rows: [] }));
  const put = putPart ?? savedParts;
  const services = {
    formulas: {
      // a save answers the formula read again
      get: async () => formula,
      getPart: (id: string, part: FormulaPartName) => getPart.call({ id, part }),
      putPart: (id: string, part: FormulaPartName, body: unknown) => put.call({ id, part, body }),
      sample: (id: string) => sample.call(id),
    },
    integrations: { fields: (dataSourceId: string, object: string) => fields.call({ dataSourceId, object }) },
  } as unknown as StepCalls;
  const props = {
    onDirtyChange: vi.fn<(dirty: boolean) => void>(), onSaved: vi.fn<(f?: FormulaView) => void>(), onFormulaChange: vi.fn(),
    onBack: vi.fn(), onGoTo: vi.fn(),
  };
  // a step that loads and saves through an editor gets one over the same fake services
  const editor = startStepEditor(step, formula, services, props);
  render(
    <MantineProvider>
      <Step step={step} formula={formula} customRouting={step === 'custom-routing'} canEdit={canEdit} editor={editor} {...props} />
    </MantineProvider>,
  );
  return { ...props, getPart, putPart: savedParts, fields, sample, user: userEvent.setup() };
}

/** the parts saved, in order, as [part, body] */
const savedBodies = (put: { calls: PartCall[] }) => put.calls.map((c) => [c.part, c.body]);

/** picks an option of a Select or MultiSelect from the list the input opens (others may still be closing) */
async function choose(user: ReturnType<typeof userEvent.setup>, input: HTMLElement, option: string) {
  if (input.getAttribute('aria-expanded') !== 'true') await user.click(input);
  const list = await waitFor(() => {
    const id = input.getAttribute('aria-controls');
    const found = id ? document.getElementById(id) : null;
    if (!found) throw new Error(`the list of ${input.id} is not open`);
    return found;
  });
  await user.click(within(list).getByRole('option', { name: option, hidden: true }));
}
/** a Select's or MultiSelect's input by its label (a MultiSelect's list carries the label too) */
const combo = (container: HTMLElement, name: string) => within(container).getByRole('combobox', { name });
const scenarioGroup = (n: number) => screen.getByRole('group', { name: `Scenario ${n}` });
const saveButton = () => screen.getByRole('button', { name: 'Save and continue' });
const refusal = () => screen.getByTestId('save-refused');

// --------------------------------------------------------------------------------------- matching

const RECOMMENDED = recommendedMatching({
  system: 'sandbox-crm', object: 'constituents', destinationFields: DESTINATION_FIELDS, sourceFields: SOURCE_FIELDS,
});

const SAVED_MATCHING: FormulaPartBody['matching'] = {
  scenarios: [{ name: 'Lookup', criteria: [{ source: 'Email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }],
  advanced: false,
  autoPick: [],
};

describe('the matching step', () => {
  it('starts from the scenarios recommended for the destination, and saves them as they are', async () => {
    const s = renderStep({ step: 'matching', Step: MatchingStep });
    await screen.findByTestId('matching-step');
    expect(screen.getByTestId('recommended-note').textContent).toContain('Sandbox CRM (Constituents)');
    expect(RECOMMENDED.scenarios.map((x) => x.name)).toEqual(['E-mail', 'Last name and postal code', 'Phone', 'Swapped names and postal code']);
    // each scenario filled in: name, criteria by their labels, match reason, tier
    const first = scenarioGroup(1);
    expect(within(first).getByLabelText('Scenario name')).toHaveProperty('value', 'E-mail');
    expect(within(first).getByLabelText('Source field')).toHaveProperty('value', 'Email');
    expect(within(first).getByLabelText('Destination field')).toHaveProperty('value', 'E-mail');
    expect(within(first).getByLabelText('Match reason')).toHaveProperty('value', 'Same e-mail');
    expect(within(first).getByRole('radio', { name: 'Primary' })).toHaveProperty('checked', true);
    const second = scenarioGroup(2);
    expect(within(second).getAllByLabelText('Source field').map((i) => (i as HTMLInputElement).value)).toEqual(['Last name', 'Zip']);
    expect(within(second).getAllByLabelText('Destination field').map((i) => (i as HTMLInputElement).value)).toEqual(['Last name', 'Postal code']);
    expect(within(second).getByRole('radio', { name: 'Secondary' })).toHaveProperty('checked', true);
    expect(screen.getByRole('switch', { name: /Advanced Matching Settings/ })).toHaveProperty('checked', true);
    expect(screen.getByTestId('tier-rule').textContent).toBe('Primary scenarios search first: if a primary search finds a record, secondary searches are skipped.');
    expect(screen.getByText('You can define up to 10 scenarios.')).toBeTruthy();
    // the formula lists no matching part: none is asked for (it would answer 404)
    expect(s.getPart.calls).toEqual([]);
    expect(s.fields.calls).toEqual([{ dataSourceId: 'partner-sftp', object: 'supporters.csv' }, { dataSourceId: 'sandbox', object: 'constituents' }]);
    // the destination's non-searchable fields are not offered to a scenario
    await s.user.click(within(first).getByLabelText('Destination field'));
    expect(screen.queryByRole('option', { name: 'Address line 2', hidden: true })).toBeNull();
    await s.user.keyboard('{Escape}');

    await s.user.click(saveButton());
    await waitFor(() => expect(s.onSaved).toHaveBeenCalledTimes(1));
    expect(savedBodies(s.putPart)).toEqual([['matching', RECOMMENDED]]);
    expect(s.onDirtyChange).not.toHaveBeenCalled();
  });

  it('says, for an enrichment destination, why its searches find nobody and everyone is screened as new', async () => {
    renderStep({ step: 'matching', Step: MatchingStep, parts: { matching: SAVED_MATCHING } });
    await screen.findByTestId('matching-step');
    expect(screen.queryByTestId('enrichment-note')).toBeNull();
    cleanup();
    const wealthengine = end({ dataSourceId: 'we', object: 'profiles', system: 'wealthengine', displayName: 'WealthEngine' });
    renderStep({ step: 'matching', Step: MatchingStep, parts: { matching: SAVED_MATCHING }, formula: { ...FORMULA, firstDestinationDataSource: wealthengine } });
    await screen.findByTestId('matching-step');
    expect(screen.getByTestId('enrichment-note').textContent).toBe(connectorFor('wealthengine').enrichment);
    // and where the profiles found go next: a second formula reading WealthEngine's screenings
    expect(screen.getByTestId('enrichment-note').textContent).toContain("a second formula whose source is this WealthEngine connection's screenings");
  });

  it('reads a file-upload source\'s fields from its sample', async () => {
    const s = renderStep({ step: 'matching', Step: MatchingStep, formula: { ...FORMULA, usesFileUpload: true } });
    await screen.findByTestId('matching-step');
    expect(s.sample.calls).toEqual([FORMULA_ID]);
    expect(s.fields.calls).toEqual([{ dataSourceId: 'sandbox', object: 'constituents' }]);
    expect(within(scenarioGroup(1)).getByLabelText('Source field')).toHaveProperty('value', 'E-mail address');
    expect(within(scenarioGroup(2)).getAllByLabelText('Source field').map((i) => (i as HTMLInputElement).value)).toEqual(['Surname', 'Postcode']);
  });

  it('shows the saved part rather than the recommended one', async () => {
    renderStep({ step: 'matching', Step: MatchingStep, parts: { matching: SAVED_MATCHING } });
    await screen.findByTestId('matching-step');
    expect(screen.queryByTestId('recommended-note')).toBeNull();
    expect(screen.getAllByTestId('scenario')).toHaveLength(1);
    expect(within(scenarioGroup(1)).getByLabelText('Scenario name')).toHaveProperty('value', 'Lookup');
    // without Advanced Matching Settings there are no tiers to choose
    expect(within(scenarioGroup(1)).queryByRole('radio', { name: 'Primary' })).toBeNull();
    expect(screen.getByTestId('tier-rule').textContent).toMatch(/^Every scenario is primary/);
  });

  it('refuses to save without a scenario: \'You need to define at least one scenario\', and saves nothing', async () => {
    const s = renderStep({ step: 'matching', Step: MatchingStep });
    await screen.findByTestId('matching-step');
    for (let n = screen.getAllByTestId('scenario').length; n > 0; n--) await s.user.click(screen.getByRole('button', { name: 'Remove scenario 1' }));
    expect(screen.queryAllByTestId('scenario')).toHaveLength(0);
    await s.user.click(screen.getByRole('switch', { name: /Advanced Matching Settings/ }));
    await s.user.click(saveButton());
    expect(screen.getByTestId('scenarios-error').textContent).toBe('You need to define at least one scenario');
    expect(within(refusal()).getByText('You need to define at least one scenario')).toBeTruthy();
    expect(within(refusal()).getByText('An error occured while saving Matching')).toBeTruthy();
    expect(s.putPart.calls).toEqual([]);
    expect(s.onSaved).not.toHaveBeenCalled();
    expect(s.onDirtyChange).toHaveBeenLastCalledWith(true);
  });

  it('refuses an incomplete scenario with \'Unable to save Record Match Search\' where it is missing, and saves it once complete', async () => {
    const s = renderStep({ step: 'matching', Step: MatchingStep, parts: { matching: SAVED_MATCHING } });
    await screen.findByTestId('matching-step');
    await s.user.click(screen.getByRole('button', { name: 'Add scenario' }));
    expect(s.onDirtyChange).toHaveBeenLastCalledWith(true);
    const added = scenarioGroup(2);
    await s.user.type(within(added).getByLabelText('Scenario name'), 'Phone');
    await s.user.click(saveButton());
    expect(within(refusal()).getByText('Unable to save Record Match Search')).toBeTruthy();
    // said at the source field, the destination field and the match reason; not at the name given
    expect(within(added).getAllByText('Unable to save Record Match Search')).toHaveLength(3);
    expect(within(added).getByLabelText('Match reason').getAttribute('aria-invalid')).toBe('true');
    expect(within(added).getByLabelText('Scenario name').getAttribute('aria-invalid')).not.toBe('true');
    expect(within(scenarioGroup(1)).queryByText('Unable to save Record Match Search')).toBeNull();
    expect(s.putPart.calls).toEqual([]);

    // filled in, the messages go as each piece is given
    await choose(s.user, within(added).getByLabelText('Source field'), 'Phone');
    await choose(s.user, within(added).getByLabelText('Destination field'), 'Phone');
    expect(within(added).getAllByText('Unable to save Record Match Search')).toHaveLength(1);
    await s.user.type(within(added).getByLabelText('Match reason'), 'Same phone');
    expect(screen.queryByTestId('save-refused')).toBeNull();
    await s.user.click(saveButton());
    await waitFor(() => expect(s.onSaved).toHaveBeenCalledTimes(1));
    expect(savedBodies(s.putPart)).toEqual([['matching', {
      scenarios: [...SAVED_MATCHING.scenarios, { name: 'Phone', criteria: [{ source: 'Phone', destination: 'phone' }], matchReason: 'Same phone', isPrimary: true }],
      advanced: false, autoPick: [],
    }]]);
  });

  it('refuses Advanced Matching Settings with one scenario, and saves them with two in tiers', async () => {
    const s = renderStep({ step: 'matching', Step: MatchingStep, parts: { matching: SAVED_MATCHING } });
    await screen.findByTestId('matching-step');
    const advanced = screen.getByRole('switch', { name: /Advanced Matching Settings/ });
    await s.user.click(advanced);
    await s.user.click(saveButton());
    expect(within(refusal()).getByText('Advanced Matching Settings need at least 2 scenarios')).toBeTruthy();
    expect(advanced.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(advanced.getAttribute('aria-describedby')!.split(' ').find((id) => document.getElementById(id)?.textContent?.startsWith('Advanced Matching Settings need'))!)).toBeTruthy();
    expect(s.putPart.calls).toEqual([]);

    // a second scenario, secondary, moved first and back
    await s.user.click(screen.getByRole('button', { name: 'Add scenario' }));
    const added = scenarioGroup(2);
    expect(within(added).getByRole('radio', { name: 'Secondary' })).toHaveProperty('checked', true);
    await s.user.type(within(added).getByLabelText('Scenario name'), 'Surname and zip');
    await choose(s.user, within(added).getByLabelText('Source field'), 'Last name');
    await choose(s.user, within(added).getByLabelText('Destination field'), 'Last name');
    await s.user.click(within(added).getByRole('button', { name: 'Add criterion' }));
    const second = within(added).getByRole('group', { name: 'Criterion 2' });
    await choose(s.user, within(second).getByLabelText('Source field'), 'Zip');
    await choose(s.user, within(second).getByLabelText('Destination field'), 'Postal code');
    await s.user.type(within(added).getByLabelText('Match reason'), 'Same surname and zip');
    await s.user.click(screen.getByRole('button', { name: 'Move scenario 2 up' }));
    expect(within(scenarioGroup(1)).getByLabelText('Scenario name')).toHaveProperty('value', 'Surname and zip');
    await s.user.click(screen.getByRole('button', { name: 'Move scenario 1 down' }));
    await s.user.click(saveButton());
    await waitFor(() => expect(s.onSaved).toHaveBeenCalledTimes(1));
    expect(savedBodies(s.putPart)).toEqual([['matching', {
      scenarios: [
        SAVED_MATCHING.scenarios[0],
        { name: 'Surname and zip', criteria: [{ source: 'Last name', destination: 'lastName' }, { source: 'Zip', destination: 'postalCode' }], matchReason: 'Same surname and zip', isPrimary: false },
      ],
      advanced: true, autoPick: [],
    }]]);
  });

  it('keeps every scenario primary without Advanced Matching Settings', async () => {
    const s = renderStep({ step: 'matching', Step: MatchingStep });
    await screen.findByTestId('matching-step');
    await s.user.click(screen.getByRole('switch', { name: /Advanced Matching Settings/ }));
    await s.user.click(saveButton());
    await waitFor(() => expect(s.onSaved).toHaveBeenCalledTimes(1));
    expect(savedBodies(s.putPart)).toEqual([['matching', { ...RECOMMENDED, advanced: false, scenarios: RECOMMENDED.scenarios.map((x) => ({ ...x, isPrimary: true })) }]]);
  });

  it('warns of duplicate Auto Pick configurations and still saves them', async () => {
    const s = renderStep({ step: 'matching', Step: MatchingStep, parts: { matching: SAVED_MATCHING } });
    await screen.findByTestId('matching-step');
    const add = screen.getByRole('button', { name: 'Add Auto Pick condition' });
    await s.user.click(add);
    await s.user.click(add);
    // an empty condition is refused, with its own message
    await s.user.click(saveButton());
    expect(within(refusal()).getByText('Choose at least one field')).toBeTruthy();
    const [one, two] = screen.getAllByTestId('auto-pick') as [HTMLElement, HTMLElement];
    await choose(s.user, combo(one, 'Fields that must match exactly'), 'E-mail');
    await choose(s.user, combo(one, 'Fields that must match exactly'), 'Last name');
    await s.user.keyboard('{Escape}');
    expect(screen.queryByText(/Two Auto Pick conditions use the same fields/)).toBeNull();
    await choose(s.user, combo(two, 'Fields that must match exactly'), 'Last name');
    await choose(s.user, combo(two, 'Fields that must match exactly'), 'E-mail');
    await s.user.keyboard('{Escape}');
    expect(within(two).getByText(/Two Auto Pick conditions use the same fields/)).toBeTruthy();
    expect(within(one).queryByText(/Two Auto Pick conditions use the same fields/)).toBeNull();
    await s.user.type(within(two).getByLabelText('Minimum confidence score'), '90');
    await s.user.click(saveButton());
    await waitFor(() => expect(s.onSaved).toHaveBeenCalledTimes(1));
    expect(savedBodies(s.putPart)).toEqual([['matching', {
      ...SAVED_MATCHING,
      autoPick: [{ fields: ['email', 'lastName'], exact: true }, { fields: ['lastName', 'email'], exact: true, minScore: 90 }],
    }]]);
  });

  it('reports unsaved changes, and none once they are undone', async () => {
    const s = renderStep({ step: 'matching', Step: MatchingStep, parts: { matching: SAVED_MATCHING } });
    await screen.findByTestId('matching-step');
    const reason = within(scenarioGroup(1)).getByLabelText('Match reason');
    await s.user.type(reason, '!');
    expect(s.onDirtyChange.mock.calls).toEqual([[true]]);
    await s.user.type(reason, '{Backspace}');
    expect(s.onDirtyChange.mock.calls).toEqual([[true], [false]]);
  });

  it('says so while saving, and stays with the server\'s refusal', async () => {
    const putPart = fakeCall<PartCall, unknown>('putPart');
    const s = renderStep({ step: 'matching', Step: MatchingStep, parts: { matching: SAVED_MATCHING }, putPart });
    await screen.findByTestId('matching-step');
    await s.user.click(saveButton());
    expect(await putPart.called()).toEqual({ id: FORMULA_ID, part: 'matching', body: SAVED_MATCHING });
    await waitFor(() => expect(saveButton().hasAttribute('data-loading')).toBe(true));
    await act(async () => putPart.reject(Object.assign(new Error('refused'), { problem: { detail: 'Unable to save Record Match Search' } })));
    await waitFor(() => expect(saveButton().hasAttribute('data-loading')).toBe(false));
    expect(s.onSaved).not.toHaveBeenCalled();
  });

  it('is read-only without permission to edit formulas', async () => {
    const s = renderStep({ step: 'matching', Step: MatchingStep, canEdit: false });
    await screen.findByTestId('matching-step');
    expect(screen.getByText(/You can view this step/)).toBeTruthy();
    expect(within(scenarioGroup(1)).getByLabelText('Scenario name')).toHaveProperty('disabled', true);
    expect(within(scenarioGroup(1)).getByLabelText('Source field')).toHaveProperty('disabled', true);
    expect(screen.getByRole('switch', { name: /Advanced Matching Settings/ })).toHaveProperty('disabled', true);
    for (const name of ['Add scenario', 'Add criterion', 'Add Auto Pick condition', 'Remove scenario 1', 'Save and continue']) {
      expect(screen.queryByRole('button', { name }), name).toBeNull();
    }
    await s.user.click(screen.getByRole('button', { name: 'Next' }));
    expect(s.onSaved).toHaveBeenCalledTimes(1);
    expect(s.putPart.calls).toEqual([]);
  });

  it('says when the part or the fields cannot be read, and tries again', async () => {
    renderStep({ step: 'matching', Step: MatchingStep, partFails: true });
    expect((await screen.findByRole('alert')).textContent).toContain('Error loading Record Match Search');
    cleanup();
    const s = renderStep({ step: 'matching', Step: MatchingStep, fieldsFail: true });
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to fetch fields.');
    const before = s.fields.calls.length;
    await s.user.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(s.fields.calls.length).toBeGreaterThan(before));
  });

  it('says a refusal of the fields is one (a Data Processor may not read data sources), in every step that reads them', async () => {
    const refused = new ApiError(403, { title: 'forbidden', detail: 'You need datasource view permission.' }, { silent: true });
    for (const [step, Step] of [['matching', MatchingStep], ['routing', RoutingStep], ['custom-routing', CustomRoutingStep]] as const) {
      renderStep({ step, Step, fieldsFail: refused, canEdit: false });
      const alert = await screen.findByRole('alert');
      expect(alert.textContent, step).toContain("You do not have permission to read the fields of this formula's data sources.");
      expect(alert.textContent, step).not.toContain('Failed to fetch fields.');
      cleanup();
    }
  });
});

// ---------------------------------------------------------------------------------------- routing

describe('the routing step', () => {
  it('starts with every record stopping for review, and saves the triage and autosend exactly', async () => {
    const s = renderStep({ step: 'routing', Step: RoutingStep });
    await screen.findByTestId('routing-step');
    // the formula lists neither part: neither is asked for (each would answer 404)
    expect(s.getPart.calls).toEqual([]);
    const group = (name: string) => screen.getByRole('radiogroup', { name });
    expect(within(group('Records with no match')).getByRole('radio', { name: 'Review in Needs Attention' })).toHaveProperty('checked', true);
    expect(within(group('Records with a single match')).getByRole('radio', { name: 'Review in Needs Attention' })).toHaveProperty('checked', true);
    expect(within(group('Capitalization counts as a data difference')).getByRole('radio', { name: /^No/ })).toHaveProperty('checked', true);
    expect(within(group('Ready records')).getByRole('radio', { name: /^Hold for review/ })).toHaveProperty('checked', true);
    expect(screen.queryByRole('combobox', { name: 'Fields that must match exactly' })).toBeNull();
    // weak candidates are discarded from the start, and the field says what it does
    const discardInput = screen.getByLabelText('Discard candidates scoring below');
    expect(discardInput).toHaveProperty('value', '80');
    const described = document.getElementById(discardInput.getAttribute('aria-describedby')!.split(' ')[0]!)!;
    expect(described.textContent).toMatch(/^Drops candidates scoring below this \(0 to 100\) from a record's matches.*80 is recommended/);

    await s.user.click(within(group('Records with no match')).getByRole('radio', { name: 'Add to Ready as new records' }));
    await s.user.click(within(group('Records with a single match')).getByRole('radio', { name: 'Add to Ready if the selected fields match exactly' }));
    // Ready if exact, but on no fields: refused
    await s.user.click(saveButton());
    expect(within(refusal()).getByText('Choose the fields that must match exactly')).toBeTruthy();
    expect(within(refusal()).getByText('An error occured while saving Routing')).toBeTruthy();
    expect(s.putPart.calls).toEqual([]);
    const exact = combo(document.body, 'Fields that must match exactly');
    await choose(s.user, exact, 'E-mail');
    await choose(s.user, exact, 'Last name');
    await s.user.keyboard('{Escape}');
    expect(screen.queryByTestId('save-refused')).toBeNull();
    const discard = screen.getByLabelText('Discard candidates scoring below');
    await s.user.clear(discard);
    await s.user.type(discard, '40');
    await s.user.click(within(group('Capitalization counts as a data difference')).getByRole('radio', { name: /^Yes/ }));
    await s.user.click(within(group('Ready records')).getByRole('radio', { name: /^Send automatically/ }));
    expect(s.onDirtyChange).toHaveBeenLastCalledWith(true);
    await s.user.click(saveButton());
    await waitFor(() => expect(s.onSaved).toHaveBeenCalledTimes(1));
    expect(savedBodies(s.putPart)).toEqual([
      ['routing', { kind: 'default', unmatched: 'ready', singleMatch: 'ready-if-exact', exactFields: ['email', 'lastName'], discardBelow: 40, capitalizationIsDifference: true }],
      ['autosend', { enabled: true }],
    ]);
  });

  it('shows the saved triage, and keeps scores from 0 to 100', async () => {
    const s = renderStep({
      step: 'routing', Step: RoutingStep,
      parts: { routing: { kind: 'default', unmatched: 'ready', singleMatch: 'ready', exactFields: [], discardBelow: 30, capitalizationIsDifference: false }, autosend: { enabled: true } },
    });
    await screen.findByTestId('routing-step');
    expect(screen.getByRole('radio', { name: 'Add to Ready' })).toHaveProperty('checked', true);
    const discard = screen.getByLabelText('Discard candidates scoring below');
    expect(discard).toHaveProperty('value', '30');
    expect(screen.getByRole('radio', { name: /^Send automatically/ })).toHaveProperty('checked', true);
    // a score above 100 is brought back to 100 as the input is left
    await s.user.clear(discard);
    await s.user.type(discard, '150');
    await s.user.tab();
    expect(discard).toHaveProperty('value', '100');
    // emptied, no candidate is discarded
    await s.user.clear(discard);
    await s.user.click(saveButton());
    await waitFor(() => expect(s.onSaved).toHaveBeenCalledTimes(1));
    expect(savedBodies(s.putPart)).toEqual([
      ['routing', { kind: 'default', unmatched: 'ready', singleMatch: 'ready', exactFields: [], discardBelow: null, capitalizationIsDifference: false }],
      ['autosend', { enabled: true }],
    ]);
  });

  it('starts from the triage defaults when rules were saved under the custom-routing flag', async () => {
    const s = renderStep({ step: 'routing', Step: RoutingStep, parts: { routing: { kind: 'custom', rules: [], otherwise: 'ready' } } });
    await screen.findByTestId('routing-step');
    await s.user.click(saveButton());
    await waitFor(() => expect(s.onSaved).toHaveBeenCalledTimes(1));
    expect(savedBodies(s.putPart)[0]).toEqual(['routing', { kind: 'default', unmatched: 'needs-attention', singleMatch: 'needs-attention', exactFields: [], discardBelow: 80, capitalizationIsDifference: false }]);
  });

  it('keeps a saved triage without a discard score as saved', async () => {
    const s = renderStep({ step: 'routing', Step: RoutingStep, parts: { routing: VALID_TRIAGE } });
    await screen.findByTestId('routing-step');
    expect(screen.getByLabelText('Discard candidates scoring below')).toHaveProperty('value', '');
    await s.user.click(saveButton());
    await waitFor(() => expect(s.onSaved).toHaveBeenCalledTimes(1));
    expect(savedBodies(s.putPart)[0]).toEqual(['routing', VALID_TRIAGE]);
  });

  it('is read-only without permission to edit formulas', async () => {
    renderStep({ step: 'routing', Step: RoutingStep, canEdit: false });
    await screen.findByTestId('routing-step');
    for (const radio of screen.getAllByRole('radio')) expect(radio).toHaveProperty('disabled', true);
    expect(screen.getByLabelText('Discard candidates scoring below')).toHaveProperty('disabled', true);
    expect(screen.queryByRole('button', { name: 'Save and continue' })).toBeNull();
  });
});

// --------------------------------------------------------------------------------- custom routing

describe('the custom-routing step', () => {
  const rule = (n: number) => screen.getByRole('group', { name: `Rule ${n}` });
  const condition = (r: HTMLElement, n: number) => within(r).getByRole('group', { name: `Condition ${n}` });

  it('builds rules on matching data, transformed data and raw source, and saves the exact bodies', async () => {
    const s = renderStep({ step: 'custom-routing', Step: CustomRoutingStep });
    await screen.findByTestId('custom-routing-step');
    expect(screen.getByText('No rules yet: every record goes to Needs Attention.')).toBeTruthy();
    await s.user.click(screen.getByRole('button', { name: 'Add rule' }));

    // rule 1: route to Ready when the best score equals 100 and the raw e-mail is not blank
    const one = rule(1);
    await choose(s.user, within(one).getByLabelText('Action'), 'Route to Ready');
    let c = condition(one, 1);
    expect(within(c).getByLabelText('Data')).toHaveProperty('value', 'Matching data');
    await choose(s.user, within(c).getByLabelText('Field'), 'Best score');
    expect(within(c).getByLabelText('Operator')).toHaveProperty('value', 'equals');
    await s.user.type(within(c).getByLabelText('Value'), '100');
    await s.user.click(within(one).getByRole('button', { name: 'Add condition' }));
    c = condition(one, 2);
    await choose(s.user, within(c).getByLabelText('Data'), 'Raw source');
    await choose(s.user, within(c).getByLabelText('Field'), 'Email');
    await choose(s.user, within(c).getByLabelText('Operator'), 'is not blank');

    // rule 2: omit records whose transformed last name is one of two test names
    await s.user.click(screen.getByRole('button', { name: 'Add rule' }));
    const two = rule(2);
    await choose(s.user, within(two).getByLabelText('Action'), 'Omit records');
    c = condition(two, 1);
    await choose(s.user, within(c).getByLabelText('Data'), 'Transformed data');
    await choose(s.user, within(c).getByLabelText('Field'), 'Last name');
    await choose(s.user, within(c).getByLabelText('Operator'), 'is not one of');
    await s.user.type(within(c).getByLabelText('Values'), 'Test{Enter}Sample{Enter}');

    // the omitting rule goes first
    await s.user.click(screen.getByRole('button', { name: 'Move rule 2 up' }));
    await s.user.click(screen.getByRole('radio', { name: 'Route to Ready' }));
    await s.user.click(screen.getByRole('radio', { name: /^Send automatically/ }));
    await s.user.click(saveButton());
    await waitFor(() => expect(s.onSaved).toHaveBeenCalledTimes(1));
    expect(savedBodies(s.putPart)).toEqual([
      ['routing', {
        kind: 'custom',
        rules: [
          { action: 'omit', conditions: [{ sourceType: 'transformed', field: 'lastName', operator: 'not-one-of', values: ['Test', 'Sample'] }] },
          {
            action: 'route', target: 'ready', conditions: [
              { sourceType: 'matching', field: 'bestScore', operator: 'equals', values: ['100'] },
              { sourceType: 'raw', field: 'Email', operator: 'is-not-blank', values: [] },
            ],
          },
        ],
        otherwise: 'ready',
      }],
      ['autosend', { enabled: true }],
    ]);
  });

  it('adapts the value input to the operator: none, a list of values, or one value', async () => {
    const s = renderStep({ step: 'custom-routing', Step: CustomRoutingStep });
    await screen.findByTestId('custom-routing-step');
    await s.user.click(screen.getByRole('button', { name: 'Add rule' }));
    const c = condition(rule(1), 1);
    const shapes: Record<string, string> = {};
    for (const operator of ROUTING_OPERATOR_NAMES) {
      await choose(s.user, within(c).getByLabelText('Operator'), ROUTING_OPERATORS[operator]);
      shapes[operator] = within(c).queryByLabelText('Values') ? 'list' : within(c).queryByLabelText('Value') ? 'one' : 'none';
    }
    expect(shapes).toEqual({
      equals: 'one', 'not-equals': 'one', 'is-blank': 'none', 'is-not-blank': 'none', 'not-one-of': 'list',
      'starts-with': 'one', 'ends-with': 'one', contains: 'one', 'not-contains-one-of': 'list',
    });
  });

  it('refuses a condition without a field or a value, where it is missing, and saves nothing', async () => {
    const s = renderStep({ step: 'custom-routing', Step: CustomRoutingStep });
    await screen.findByTestId('custom-routing-step');
    await s.user.click(screen.getByRole('button', { name: 'Add rule' }));
    await s.user.click(saveButton());
    const c = condition(rule(1), 1);
    expect(within(c).getByText('Choose a field')).toBeTruthy();
    expect(within(c).getByText('Enter a value to compare with')).toBeTruthy();
    expect(within(refusal()).getByText('Enter a value to compare with')).toBeTruthy();
    expect(within(refusal()).getByText('An error occured while saving Custom routing')).toBeTruthy();
    // a condition can go only with its rule: the last one stays
    expect(within(c).getByRole('button', { name: 'Remove condition 1' })).toHaveProperty('disabled', true);
    await choose(s.user, within(c).getByLabelText('Field'), 'Candidate count');
    await choose(s.user, within(c).getByLabelText('Operator'), 'is blank');
    expect(screen.queryByTestId('save-refused')).toBeNull();
    expect(s.putPart.calls).toEqual([]);
  });

  it('shows the saved rules, and starts with none when a triage was saved', async () => {
    renderStep({
      step: 'custom-routing', Step: CustomRoutingStep,
      parts: {
        routing: { kind: 'custom', rules: [{ action: 'route', target: 'needs-attention', conditions: [{ sourceType: 'raw', field: 'Legacy code', operator: 'not-contains-one-of', values: ['X1', 'X2'] }] }], otherwise: 'ready' },
        autosend: { enabled: false },
      },
    });
    await screen.findByTestId('custom-routing-step');
    const c = condition(rule(1), 1);
    expect(within(rule(1)).getByLabelText('Action')).toHaveProperty('value', 'Route to Needs Attention');
    // a field the source no longer lists is still shown
    expect(within(c).getByLabelText('Field')).toHaveProperty('value', 'Legacy code');
    expect(within(c).getByLabelText('Operator')).toHaveProperty('value', 'does not contain one of');
    expect(within(c).getByText('X1')).toBeTruthy();
    expect(within(c).getByText('X2')).toBeTruthy();
    cleanup();
    renderStep({ step: 'custom-routing', Step: CustomRoutingStep, parts: { routing: VALID_TRIAGE } });
    await screen.findByTestId('custom-routing-step');
    expect(screen.queryAllByTestId('rule')).toHaveLength(0);
  });

  it('is read-only without permission to edit formulas', async () => {
    const s = renderStep({
      step: 'custom-routing', Step: CustomRoutingStep, canEdit: false,
      parts: { routing: { kind: 'custom', rules: [{ action: 'omit', conditions: [{ sourceType: 'matching', field: 'autoPicked', operator: 'equals', values: ['true'] }] }], otherwise: 'ready' } },
    });
    await screen.findByTestId('custom-routing-step');
    const c = condition(rule(1), 1);
    for (const label of ['Data', 'Field', 'Operator', 'Value']) expect(within(c).getByLabelText(label), label).toHaveProperty('disabled', true);
    for (const name of ['Add rule', 'Add condition', 'Remove rule 1', 'Save and continue']) expect(screen.queryByRole('button', { name }), name).toBeNull();
    await s.user.click(screen.getByRole('button', { name: 'Next' }));
    expect(s.onSaved).toHaveBeenCalledTimes(1);
  });
});

const VALID_TRIAGE: FormulaPartBody['routing'] = { kind: 'default', unmatched: 'ready', singleMatch: 'needs-attention', exactFields: [], discardBelow: null, capitalizationIsDifference: false };
