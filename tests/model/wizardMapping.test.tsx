/**
 * The Formula Wizard's mapping step on its own, with fake services (the step's editor over them): it
 * loads the destination's and the source's fields, the sample and the saved parts, and says which
 * service failed when one does; fields are mapped from the source or given a defined value (with
 * SPEC.md's message for a wrong one), transformed (concatenate, case, shorten, split, adjust date,
 * round) and validated into a named bucket, with the preview computed by the engine's own
 * functions; the field picker's rules; and the four parts saved with exactly these bodies.
 */
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { Notifications, notifications } from '@mantine/notifications';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FieldInfo } from '../../src/domain/api/integrations.ts';
import type { DataSourceListItem, SystemId } from '../../src/domain/connectors/types.ts';
import type { FormulaPartBody, FormulaPartName } from '../../src/domain/formula/parts.ts';
import type { FormulaSample, FormulaView } from '../../src/services/formulas.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { StepProps } from '../../src/views/wizard/step.tsx';
import type { StepCalls } from '../../src/machines/wizardSteps.ts';
import { MappingStep } from '../../src/views/wizard/steps/MappingStep.tsx';
import { sandbox } from '../../server/connectors/sandboxCrm/fields.ts';
import { RENXT_FIELDS } from '../../server/connectors/skyApi/renxtFields.ts';
import { answeredCall, fakeCall } from '../support/fakeCalls.ts';
import { startStepEditor } from '../support/stepEditors.ts';

afterEach(() => {
  cleanup();
  notifications.clean();
});

const FORMULA_ID = '3f6c8a52-0c1e-4d1a-9a57-6c0f8e2b7d10';
const ds = (id: string, system: SystemId, displayName: string): Pick<DataSourceListItem, 'id' | 'system' | 'displayName'> => ({ id, system, displayName });
const CRM = ds('22222222-2222-4222-8222-222222222222', 'sandbox-crm', 'Sandbox CRM');
const SFTP = ds('11111111-1111-4111-8111-111111111111', 'sftp', 'Partner SFTP');
type End = NonNullable<FormulaView['sourceDataSource']>;
const end = (d: typeof CRM, object: string): End => ({ dataSourceId: d.id, object, settings: {}, system: d.system, displayName: d.displayName, hasAdditionalSettings: false });

const formulaOf = (over: Partial<FormulaView> = {}): FormulaView => ({
  id: FORMULA_ID, name: 'Spring appeal', isDraft: true, usesFileUpload: false,
  sourceDataSource: end(SFTP, 'supporters.csv'), firstDestinationDataSource: end(CRM, 'constituents'),
  sampleUploadId: null, status: 'inactive', jobStatus: null, needsReprocess: false, archivedOn: null, parts: [],
  createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-01T00:00:00Z', ...over,
});

/** the Sandbox CRM's constituents, as the connector describes them */
const DESTINATION: FieldInfo[] = sandbox.fields.constituents;
/** those a mapping may fill: not the dates the CRM sets itself */
const WRITABLE = DESTINATION.filter((f) => !f.readOnly);
const SOURCE: FieldInfo[] = ['First name', 'Last name', 'Email', 'Street number', 'Street', 'Joined', 'Gift'].map((name) => ({ name, label: name, type: 'string' }));
const SAMPLE: FormulaSample = {
  fields: SOURCE.map((f) => f.name),
  rows: [
    { 'First name': 'ada', 'Last name': 'LOVELACE', Email: 'ada@example.org', 'Street number': '12', Street: 'MAIN STREET', Joined: '2026-03-07', Gift: '10.005' },
    { 'First name': 'grace', 'Last name': "o'hopper", Email: 'grace at navy', 'Street number': '', Street: 'elm row', Joined: 'soon', Gift: 'ten' },
  ],
};

const CONNECTION_ERROR = new ApiError(502, { title: 'connection-error', detail: 'The system did not answer.' }, { silent: true });
const CONNECTION_FAILED = new ApiError(422, { title: 'connection-failed', detail: 'The system refused the credentials.' }, { silent: true });
const SERVER_ERROR = new ApiError(500, { title: 'server-error', detail: 'A server error occured. Please try again later.' }, { silent: true });
/** what the server answers a role without datasource view (a Data Processor) asking for fields */
const REFUSED = new ApiError(403, { title: 'forbidden', detail: 'You need datasource view permission.' }, { silent: true });
const PART_FAILED = (part: string) => new ApiError(500, { title: `${part}-get-failed`, detail: `Error loading ${part}` }, { silent: true });

interface Options {
  destination?: FieldInfo[];
  /** the source's field names (SOURCE's by default) */
  source?: string[];
  parts?: Partial<{ [P in FormulaPartName]: FormulaPartBody[P] }>;
  /** failures by call: 'destination', 'source', 'sample', or a part name */
  fail?: Partial<Record<string, unknown>>;
}

type PutInput = { id: string; part: FormulaPartName; body: unknown; options: unknown };

/** Fake services: reads answer at once (or fail as told); putPart records its bodies. */
function fakeServices(opts: Options = {}) {
  const failures = { ...opts.fail };
  const failOr = <T,>(key: string, answer: T): T => {
    if (key in failures) throw failures[key];
    return answer;
  };
  const fields = answeredCall<{ dataSourceId: string; object: string }, { object: string; fields: FieldInfo[] }>(({ dataSourceId, object }) =>
    (dataSourceId === CRM.id ? { object, fields: failOr('destination', opts.destination ?? DESTINATION) } : { object, fields: failOr('source', opts.source ? opts.source.map((name) => ({ name, label: name, type: 'string' as const })) : SOURCE) }));
  const getPart = answeredCall<FormulaPartName, unknown>((part) => failOr(part, opts.parts?.[part] ?? null));
  const sample = answeredCall<string, FormulaSample>(() => failOr('sample', SAMPLE));
  const putPart = answeredCall<PutInput, unknown>(({ body }) => failOr('put', body));
  const get = answeredCall<string, FormulaView>(() => formulaOf({ parts: ['mapping', 'transform', 'validation', 'summary-fields'] }));
  const services = {
    formulas: {
      get: (id: string) => get.call(id),
      update: vi.fn(), activate: vi.fn(), deletePart: vi.fn(),
      sample: (id: string) => sample.call(id),
      getPart: (_id: string, part: FormulaPartName) => getPart.call(part),
      putPart: (id: string, part: FormulaPartName, body: unknown, options: unknown) => putPart.call({ id, part, body, options }),
    },
    integrations: {
      list: vi.fn(), objects: vi.fn(), refreshObjects: vi.fn(), checkSalesforceReport: vi.fn(),
      fields: (dataSourceId: string, object: string) => fields.call({ dataSourceId, object }),
    },
  } as unknown as StepCalls;
  /** lets a failed call succeed on the next try */
  const heal = (key: string) => { delete failures[key]; };
  return { services, fields, getPart, sample, putPart, get, heal };
}

function renderStep(services: StepCalls, over: Partial<StepProps> = {}) {
  const props: StepProps = {
    step: 'mapping', formula: formulaOf({ parts: ['mapping', 'transform', 'validation', 'summary-fields'] }), customRouting: false, canEdit: true,
    onDirtyChange: vi.fn(), onSaved: vi.fn(), onFormulaChange: vi.fn(), onBack: vi.fn(), onGoTo: vi.fn(), ...over,
  };
  // the step loads and saves through its editor, over the same fake services
  props.editor ??= startStepEditor('mapping', props.formula, services, props);
  // no pause between keystrokes: the step re-renders on each anyway
  const user = userEvent.setup({ delay: null });
  render(
    <MantineProvider>
      <Notifications />
      <MappingStep {...props} />
    </MantineProvider>,
  );
  return { user, props };
}

const table = () => screen.findByRole('table', { name: 'Destination fields' });
const preview = () => screen.getByRole('table', { name: 'Preview' });
/** the preview cell of a destination field in a sample row (1-based) */
/** the transform editor's sample rows: number, value before, value after */
const sampleRows = (editor: HTMLElement) => within(within(editor).getByRole('table', { name: 'Sample rows before and after' })).getAllByRole('row').slice(1)
  .map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent));
const cell = (row: number, field: string) => {
  const tr = within(preview()).getAllByRole('row')[row]!;
  return tr.querySelector(`[data-field="${field}"]`) as HTMLElement;
};

async function mapFrom(user: ReturnType<typeof userEvent.setup>, label: string, source: string) {
  await user.selectOptions(screen.getByRole('combobox', { name: `How ${label} is filled` }), 'From source field');
  await user.selectOptions(screen.getByRole('combobox', { name: `Source field for ${label}` }), source);
}

const savedBodies = (putPart: ReturnType<typeof fakeServices>['putPart']) => putPart.calls.map((c) => [c.part, c.body]);

describe('the mapping step', () => {
  it('maps fields, transforms and validates them with a live preview, and saves exactly these four parts', async () => {
    const fakes = fakeServices();
    const { user, props } = renderStep(fakes.services);
    const rows = within(await table()).getAllByRole('row');
    // the destination's required field comes first, marked
    expect(within(rows[1]!).getByText('lastName')).toBeTruthy();
    expect(within(rows[1]!).getByText('Required')).toBeTruthy();
    expect(fakes.fields.calls).toEqual([{ dataSourceId: CRM.id, object: 'constituents' }, { dataSourceId: SFTP.id, object: 'supporters.csv' }]);
    // with no mapping saved, source fields of the same names (or spellings: Street for Address line 1) are mapped from the start
    expect(screen.getByTestId('mapping-suggested').textContent).toBe('4 fields were mapped from source fields with matching names. Check the mapping, then save it.');
    expect((screen.getByRole('combobox', { name: 'Source field for Last name' }) as HTMLSelectElement).value).toBe('Last name');
    expect((screen.getByRole('combobox', { name: 'Source field for E-mail' }) as HTMLSelectElement).value).toBe('Email');
    expect((screen.getByRole('combobox', { name: 'Source field for Address line 1' }) as HTMLSelectElement).value).toBe('Street');
    expect((screen.getByRole('combobox', { name: 'How Phone is filled' }) as HTMLSelectElement).value).toBe('ignored');
    expect(props.onDirtyChange).not.toHaveBeenCalledWith(true);
    expect(screen.queryByText(/Required by the destination/)).toBeNull();
    await user.selectOptions(screen.getByRole('combobox', { name: 'How Last name is filled' }), 'Ignore');
    expect(screen.getByText(/Required by the destination and not mapped yet: Last name/)).toBeTruthy();

    await mapFrom(user, 'First name', 'First name');
    await mapFrom(user, 'Last name', 'Last name');
    await mapFrom(user, 'E-mail', 'Email');
    await mapFrom(user, 'Address line 1', 'Street');
    await user.selectOptions(screen.getByRole('combobox', { name: 'How Lookup ID is filled' }), 'Defined value');
    await user.type(screen.getByRole('textbox', { name: 'Defined value for Lookup ID' }), '10-200');
    expect(screen.queryByText(/Required by the destination/)).toBeNull();
    expect(props.onDirtyChange).toHaveBeenLastCalledWith(true);

    // the preview shows the sample as it is, then as the transforms make it
    expect(cell(1, 'firstName').textContent).toBe('ada');
    expect(cell(1, 'addressLine1').textContent).toBe('MAIN STREET');
    expect(cell(1, 'lookupId').textContent).toBe('10-200');

    await user.click(screen.getByRole('button', { name: 'Transforms of Address line 1' }));
    const editor = await screen.findByRole('dialog', { name: 'Transforms of Address line 1' });
    await user.click(within(editor).getByRole('button', { name: 'Concatenate' }));
    const concat = within(editor).getByRole('group', { name: 'Step 1: Concatenate' });
    expect((within(concat).getByRole('combobox', { name: 'Field 1' }) as HTMLSelectElement).value).toBe('Street');
    await user.selectOptions(within(concat).getByRole('combobox', { name: 'Field 1' }), 'Street number');
    await user.selectOptions(within(concat).getByRole('combobox', { name: 'Field 2' }), 'Street');
    expect(cell(1, 'addressLine1').textContent).toBe('12 MAIN STREET');
    // an empty value is skipped: no leading space
    expect(cell(2, 'addressLine1').textContent).toBe('elm row');
    await user.click(within(editor).getByRole('button', { name: 'Change case' }));
    expect((within(within(editor).getByRole('group', { name: 'Step 2: Change case' })).getByRole('combobox', { name: 'Case' }) as HTMLSelectElement).value).toBe('title');
    expect(cell(1, 'addressLine1').textContent).toBe('12 Main Street');
    expect(cell(2, 'addressLine1').textContent).toBe('Elm Row');
    // the editor shows the preview's rows, each before and after the steps, as the table below computes them
    expect(sampleRows(editor)).toEqual([['1', '“MAIN STREET”', '“12 Main Street”'], ['2', '“elm row”', '“Elm Row”']]);
    await user.click(within(editor).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Transforms of Address line 1' })).toBeNull());
    expect(screen.getByRole('button', { name: 'Transforms of Address line 1 (2)' })).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Transforms of Last name' }));
    const lastName = await screen.findByRole('dialog', { name: 'Transforms of Last name' });
    await user.click(within(lastName).getByRole('button', { name: 'Change case' }));
    await user.click(within(lastName).getByRole('button', { name: 'Done' }));
    expect(cell(2, 'lastName').textContent).toBe("O'Hopper");

    // a validation rule names the bucket a failing record goes to
    await user.click(screen.getByRole('button', { name: 'Validation rules of E-mail' }));
    const rules = await screen.findByRole('dialog', { name: 'Validation rules of E-mail' });
    await user.click(within(rules).getByRole('button', { name: 'Add rule' }));
    const rule = within(rules).getByRole('group', { name: 'Rule 1: Required' });
    await user.selectOptions(within(rule).getByRole('combobox', { name: 'Rule' }), 'E-mail');
    const bucket = within(rules).getByRole('textbox', { name: /Bucket for failing records/ });
    expect((bucket as HTMLInputElement).value).toBe('Invalid E-mail');
    await user.clear(bucket);
    await user.type(bucket, 'Bad e-mail');
    expect(within(rules).getByText('The first sample row passes.')).toBeTruthy();
    await user.click(within(rules).getByRole('button', { name: 'Done' }));
    expect(cell(2, 'email').textContent).toBe('grace at navyNot a valid e-mail address: goes to Bad e-mail');
    expect(cell(1, 'email').textContent).toBe('ada@example.org');

    await user.click(screen.getByRole('checkbox', { name: 'Show Last name in buckets' }));
    await user.click(screen.getByRole('checkbox', { name: 'Show E-mail in buckets' }));
    expect((screen.getByRole('checkbox', { name: 'Show Title in buckets' }) as HTMLInputElement).disabled).toBe(true);

    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await waitFor(() => expect(props.onSaved).toHaveBeenCalledTimes(1));
    const ignored = (destination: string) => ({ destination, kind: 'ignored' });
    expect(savedBodies(fakes.putPart)).toEqual([
      ['mapping', {
        fields: [
          { destination: 'lookupId', kind: 'defined', value: '10-200' },
          ignored('title'),
          { destination: 'firstName', kind: 'source', source: 'First name' },
          { destination: 'lastName', kind: 'source', source: 'Last name' },
          ignored('middleName'), ignored('preferredName'),
          { destination: 'email', kind: 'source', source: 'Email' },
          ignored('phone'),
          { destination: 'addressLine1', kind: 'source', source: 'Street' },
          // the dates the CRM sets itself are not offered, so not saved
          ...['addressLine2', 'city', 'state', 'postalCode', 'country'].map(ignored),
        ],
      }],
      ['transform', {
        fields: [
          { destination: 'lastName', steps: [{ kind: 'case', to: 'title' }] },
          { destination: 'addressLine1', steps: [{ kind: 'concatenate', fields: ['Street number', 'Street'], separator: 'space' }, { kind: 'case', to: 'title' }] },
        ],
      }],
      ['validation', { rules: [{ destination: 'email', rule: 'email', bucket: 'Bad e-mail' }] }],
      ['summary-fields', { fields: ['lastName', 'email'] }],
    ]);
    expect(fakes.putPart.calls.every((c) => c.id === FORMULA_ID)).toBe(true);
    expect(await screen.findByText('Mapping has been saved')).toBeTruthy();
    expect(screen.queryByTestId('mapping-suggested')).toBeNull();
    // the wizard moves on with the formula as the server now has it, and nothing is left unsaved
    expect(props.onSaved).toHaveBeenCalledWith(expect.objectContaining({ parts: ['mapping', 'transform', 'validation', 'summary-fields'] }));
    expect(props.onDirtyChange).toHaveBeenLastCalledWith(false);
  });

  it('starts from the saved parts, shows what they make of the sample, and saves them back in the destination\'s order', async () => {
    const parts = {
      mapping: {
        fields: [
          { destination: 'firstName', kind: 'source' as const, source: 'First name' },
          { destination: 'lastName', kind: 'source' as const, source: 'Last name' },
          { destination: 'joinedOn', kind: 'source' as const, source: 'Joined' },
          { destination: 'country', kind: 'defined' as const, value: '44' },
          { destination: 'retired', kind: 'source' as const, source: 'Gift' },
          // saved before the CRM said it sets this date itself
          { destination: 'modifiedOn', kind: 'source' as const, source: 'Joined' },
        ],
        selectedFields: ['firstName', 'lastName', 'joinedOn', 'country'],
      },
      transform: {
        fields: [
          { destination: 'firstName', steps: [{ kind: 'case' as const, to: 'upper' as const }, { kind: 'shorten' as const, limit: 3 }] },
          { destination: 'joinedOn', steps: [{ kind: 'adjust-date' as const, amount: 1, unit: 'day' as const, direction: 'add' as const }] },
        ],
      },
      validation: { rules: [{ destination: 'lastName', rule: 'length' as const, bucket: 'Long names', max: 6 }] },
      'summary-fields': { fields: ['firstName'] },
    };
    // a date the formula may write, beside the ones the CRM sets itself
    const fakes = fakeServices({ parts, destination: [...DESTINATION, { name: 'joinedOn', label: 'Joined on', type: 'date' }] });
    const { user, props } = renderStep(fakes.services);
    const rows = within(await table()).getAllByRole('row');
    // the picker's selection: four fields shown, the required one first
    expect(rows.map((r) => within(r).queryAllByRole('rowheader')[0]?.textContent ?? 'header')).toEqual([
      'header', 'Last namelastNameRequired', 'First namefirstName', 'Countrycountry', 'Joined onjoinedOn',
    ]);
    expect(screen.getByText('The destination no longer has retired: its mapping is left out when you save.')).toBeTruthy();
    expect(screen.getByText('The destination sets Modified on itself: its mapping is left out when you save.')).toBeTruthy();
    expect(cell(1, 'firstName').textContent).toBe('ADA');
    expect(cell(1, 'joinedOn').textContent).toBe('2026-03-08');
    expect(cell(2, 'joinedOn').textContent).toBe('Error: Adjust date needs a date (YYYY-MM-DD) or an ISO date-time, not text');
    expect(cell(1, 'lastName').textContent).toBe('LOVELACEMust be at most 6 characters long: goes to Long names');
    expect(cell(1, 'country').textContent).toBe('44');
    expect(props.onDirtyChange).not.toHaveBeenCalledWith(true);

    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await waitFor(() => expect(props.onSaved).toHaveBeenCalled());
    expect(savedBodies(fakes.putPart)).toEqual([
      ['mapping', {
        fields: [
          { destination: 'firstName', kind: 'source', source: 'First name' },
          { destination: 'lastName', kind: 'source', source: 'Last name' },
          { destination: 'country', kind: 'defined', value: '44' },
          { destination: 'joinedOn', kind: 'source', source: 'Joined' },
        ],
        selectedFields: ['firstName', 'lastName', 'country', 'joinedOn'],
      }],
      ['transform', parts.transform],
      ['validation', parts.validation],
      ['summary-fields', parts['summary-fields']],
    ]);
  });

  it('offers no field the destination sets itself: Raiser\'s Edge NXT\'s System record ID, Date added and Date changed', async () => {
    const fakes = fakeServices({ destination: RENXT_FIELDS.constituents });
    renderStep(fakes.services);
    const shown = within(await table()).getAllByRole('row').map((r) => within(r).queryAllByRole('rowheader')[0]?.textContent ?? '');
    expect(shown.some((t) => t.startsWith('Last name'))).toBe(true);
    for (const label of ['System record ID', 'Date added', 'Date changed']) expect(shown.some((t) => t.startsWith(label))).toBe(false);
  });

  it('edits, reorders and removes steps, each with SPEC\'s limits and messages', async () => {
    const fakes = fakeServices();
    const { user } = renderStep(fakes.services);
    await table();
    await mapFrom(user, 'First name', 'Gift');
    await user.click(screen.getByRole('button', { name: 'Transforms of First name' }));
    const editor = await screen.findByRole('dialog', { name: 'Transforms of First name' });
    const add = within(editor).getByRole('group', { name: 'Add a transform' });
    for (const kind of ['Shorten', 'Split', 'Adjust date', 'Round']) await user.click(within(add).getByRole('button', { name: kind }));
    const step = (n: number, name: string) => within(within(editor).getByRole('group', { name: `Step ${n}: ${name}` }));

    const limit = step(1, 'Shorten').getByRole('textbox', { name: 'Character limit' });
    await user.clear(limit);
    expect(step(1, 'Shorten').getByText('Shorten needs a numeric character limit')).toBeTruthy();
    expect(cell(1, 'firstName').textContent).toBe('Error: Shorten needs a numeric character limit');
    await user.type(limit, '4');

    await user.clear(step(2, 'Split').getByRole('textbox', { name: 'Splitter' }));
    expect(step(2, 'Split').getByText('Split needs a splitter')).toBeTruthy();
    await user.type(step(2, 'Split').getByRole('textbox', { name: 'Splitter' }), '.');
    const position = step(2, 'Split').getByRole('textbox', { name: /Position/ });
    await user.clear(position);
    await user.type(position, '0');
    expect(step(2, 'Split').getByText('Split position must be greater than 0')).toBeTruthy();
    await user.clear(position);
    await user.type(position, '1');

    const amount = step(3, 'Adjust date').getByRole('textbox', { name: 'Amount' });
    await user.clear(amount);
    await user.type(amount, '0');
    expect(step(3, 'Adjust date').getByText('Date adjustment must be greater than 0')).toBeTruthy();
    expect(sampleRows(editor)).toEqual([['1', '“10.005”', 'complete the steps to see the result'], ['2', '“ten”', 'complete the steps to see the result']]);
    // the units are SPEC's
    expect(step(3, 'Adjust date').getAllByRole('option').map((o) => o.textContent)).toEqual(['Add', 'Subtract', 'Years', 'Months', 'Weeks', 'Days', 'Hours', 'Minutes']);
    await user.click(within(editor).getByRole('button', { name: 'Remove step 3' }));

    // shorten to 4 ("10.0"), split at "." (1st part "10"), round half up to hundredths
    expect(step(3, 'Round').getAllByRole('option').map((o) => o.textContent)).toEqual(['Up', 'Down', 'Half up', 'Ones', 'Tenths', 'Hundredths', 'Thousandths']);
    expect(cell(1, 'firstName').textContent).toBe('10.00');
    // the second row is text: round refuses it, naming what it is
    expect(cell(2, 'firstName').textContent).toBe('Error: Round needs a number, not text');
    // reordered: round first ("10.01"), then shorten ("10.0"), then split ("10")
    await user.click(within(editor).getByRole('button', { name: 'Move step 3 up' }));
    await user.click(within(editor).getByRole('button', { name: 'Move step 2 up' }));
    expect(within(editor).getByRole('group', { name: 'Step 1: Round' })).toBeTruthy();
    expect(cell(1, 'firstName').textContent).toBe('10');
    await user.click(within(editor).getByRole('button', { name: 'Done' }));

    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await waitFor(() => expect(fakes.putPart.calls).toHaveLength(4));
    expect(fakes.putPart.calls[1]!.body).toEqual({
      fields: [{
        destination: 'firstName',
        steps: [{ kind: 'round', mode: 'half-up', place: 'hundredths' }, { kind: 'shorten', limit: 4 }, { kind: 'split', splitter: '.', position: 1 }],
      }],
    });
  });

  it('a concatenation takes 2 to 10 fields, each chosen', async () => {
    const fakes = fakeServices();
    const { user } = renderStep(fakes.services);
    await table();
    await mapFrom(user, 'City', 'Street');
    await user.click(screen.getByRole('button', { name: 'Transforms of City' }));
    const editor = await screen.findByRole('dialog', { name: 'Transforms of City' });
    await user.click(within(editor).getByRole('button', { name: 'Concatenate' }));
    const concat = within(within(editor).getByRole('group', { name: 'Step 1: Concatenate' }));
    expect(concat.getByText('Choose a field', { selector: 'p' })).toBeTruthy();
    expect(concat.queryByRole('button', { name: 'Remove field 1' })).toBeNull();
    for (let i = 0; i < 8; i++) await user.click(concat.getByRole('button', { name: 'Add field' }));
    expect(concat.getAllByRole('combobox', { name: /^Field \d+$/ })).toHaveLength(10);
    expect((concat.getByRole('button', { name: 'Add field' }) as HTMLButtonElement).disabled).toBe(true);
    expect(concat.getAllByRole('option', { name: /Line break/ })).toHaveLength(1);
    await user.click(within(editor).getByRole('button', { name: 'Done' }));

    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    const errors = await screen.findByRole('alert', { name: /Mapping Errors/ });
    expect(within(errors).getByText('City, transform 1 (Concatenate): Choose a field')).toBeTruthy();
    expect(fakes.putPart.calls).toEqual([]);
  });

  it('a defined value accepts only digits, periods and hyphens', async () => {
    const fakes = fakeServices();
    const { user } = renderStep(fakes.services);
    await table();
    await mapFrom(user, 'E-mail', 'Email');
    await user.selectOptions(screen.getByRole('combobox', { name: 'How Postal code is filled' }), 'Defined value');
    const input = screen.getByRole('textbox', { name: 'Defined value for Postal code' });
    await user.type(input, '02139-abc');
    expect(screen.getByText('A defined value accepts only digits, periods and hyphens')).toBeTruthy();
    expect(input.getAttribute('aria-invalid')).toBe('true');

    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    const errors = await screen.findByRole('alert', { name: /Mapping Errors/ });
    expect(within(errors).getByText('Postal code: A defined value accepts only digits, periods and hyphens')).toBeTruthy();
    expect(document.activeElement).toBe(errors);
    expect(fakes.putPart.calls).toEqual([]);

    await user.clear(input);
    await user.type(input, '02139-4307');
    expect(screen.queryByText('A defined value accepts only digits, periods and hyphens')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await waitFor(() => expect(fakes.putPart.calls).toHaveLength(4));
  });

  it('with nothing mapped says "Map at least one field" and saves nothing', async () => {
    // columns named after nothing the destination has: nothing is mapped from the start
    const fakes = fakeServices({ source: ['Column A', 'Column B'] });
    const { user, props } = renderStep(fakes.services);
    await table();
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    const errors = await screen.findByRole('alert', { name: /Mapping Errors/ });
    expect(within(errors).getByText('Mapping Errors')).toBeTruthy();
    expect(within(errors).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Map at least one field']);
    expect(fakes.putPart.calls).toEqual([]);
    expect(props.onSaved).not.toHaveBeenCalled();

    // a source field not chosen is a problem too, once a save was tried
    await user.selectOptions(screen.getByRole('combobox', { name: 'How Phone is filled' }), 'From source field');
    expect(within(errors).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Phone: Choose a field']);
    expect(fakes.putPart.calls).toEqual([]);
  });

  it('one row, two objects: a gift from each row is turned on from the keyboard, needs its amount and date, and is saved as the gift part', async () => {
    const fakes = fakeServices({ source: ['First name', 'Last name', 'Email', 'Gift amount', 'Gift date', 'Fund'] });
    const { user, props } = renderStep(fakes.services);
    await table();
    const group = screen.getByRole('group', { name: 'Gift from each row' });
    const on = within(group).getByRole('checkbox', { name: 'Also write a gift from each row' });
    expect(on).toHaveProperty('checked', false);
    expect(within(group).queryByRole('combobox')).toBeNull();
    // keyboard only: the checkbox is reached with Tab and turned on with Space
    on.focus();
    await user.keyboard(' ');
    expect(on).toHaveProperty('checked', true);
    const fields = within(group).getByRole('group', { name: 'Gift fields' });
    expect(within(fields).getAllByRole('combobox').map((c) => c.getAttribute('aria-label') ?? (c as HTMLSelectElement).labels?.[0]?.textContent)).toEqual(
      ['Gift amount *', 'Gift date *', 'Gift fund', 'Gift type', 'Gift campaign', 'Gift appeal', 'Gift payment method']);
    await user.selectOptions(within(fields).getByRole('combobox', { name: /^Gift amount/ }), 'Gift amount');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    const errors = await screen.findByRole('alert', { name: /Mapping Errors/ });
    expect(within(errors).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Gift from each row: A gift needs Date mapped.']);
    expect(fakes.putPart.calls).toEqual([]);

    await user.selectOptions(within(fields).getByRole('combobox', { name: /^Gift date/ }), 'Gift date');
    await user.selectOptions(within(fields).getByRole('combobox', { name: /^Gift fund/ }), 'Fund');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await waitFor(() => expect(props.onSaved).toHaveBeenCalled());
    expect(savedBodies(fakes.putPart).find(([part]) => part === 'gift')).toEqual(['gift', {
      fields: [
        { destination: 'amount', kind: 'source', source: 'Gift amount' },
        { destination: 'date', kind: 'source', source: 'Gift date' },
        { destination: 'fund', kind: 'source', source: 'Fund' },
      ],
    }]);
  });

  it('a saved gift opens as it was saved, and turned off it is removed', async () => {
    const gift = { fields: [{ destination: 'amount', kind: 'source' as const, source: 'Gift' }, { destination: 'date', kind: 'source' as const, source: 'Joined' }] };
    const fakes = fakeServices({ parts: { gift } });
    const deletePart = vi.fn(async () => undefined);
    (fakes.services.formulas as unknown as { deletePart: typeof deletePart }).deletePart = deletePart;
    const { user, props } = renderStep(fakes.services, { formula: formulaOf({ parts: ['mapping', 'transform', 'validation', 'summary-fields', 'gift'] }) });
    await table();
    const group = screen.getByRole('group', { name: 'Gift from each row' });
    expect(within(group).getByRole('checkbox', { name: 'Also write a gift from each row' })).toHaveProperty('checked', true);
    expect((within(group).getByRole('combobox', { name: /^Gift amount/ }) as HTMLSelectElement).value).toBe('Gift');
    expect((within(group).getByRole('combobox', { name: /^Gift date/ }) as HTMLSelectElement).value).toBe('Joined');
    await user.click(within(group).getByRole('checkbox', { name: 'Also write a gift from each row' }));
    // turning it off is a change to save
    expect(props.onDirtyChange).toHaveBeenLastCalledWith(true);
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await waitFor(() => expect(props.onSaved).toHaveBeenCalled());
    expect(deletePart).toHaveBeenCalledWith(FORMULA_ID, 'gift', expect.anything());
    expect(fakes.putPart.calls.map((c) => c.part)).not.toContain('gift');
  });

  it('offers no gift where the destination object has none (gifts themselves)', async () => {
    const fakes = fakeServices({ destination: sandbox.fields.gifts });
    renderStep(fakes.services, { formula: formulaOf({ firstDestinationDataSource: end(CRM, 'gifts'), parts: [] }) });
    await table();
    expect(screen.queryByRole('group', { name: 'Gift from each row' })).toBeNull();
  });

  it('the field picker needs at least one field selected', async () => {
    const fakes = fakeServices();
    const { user } = renderStep(fakes.services);
    await table();
    await user.click(screen.getByRole('button', { name: `Choose fields (${WRITABLE.length} of ${WRITABLE.length})` }));
    const picker = screen.getByRole('group', { name: 'Fields to map' });
    await user.click(within(picker).getByRole('button', { name: 'Clear' }));
    expect(within(picker).getByRole('alert').textContent).toBe('Select at least one field');
    expect(screen.queryByRole('table', { name: 'Destination fields' })).toBeNull();

    await user.type(within(picker).getByRole('textbox', { name: 'Find a field' }), 'st name');
    await user.click(within(picker).getByRole('button', { name: 'Select these' }));
    expect(within(await table()).getAllByRole('row')).toHaveLength(3);
    await mapFrom(user, 'First name', 'First name');
    await user.selectOptions(screen.getByRole('combobox', { name: 'How Last name is filled' }), 'Ignore');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await waitFor(() => expect(fakes.putPart.calls).toHaveLength(4));
    // only the selected fields are saved: the e-mail mapped from the start is not among them
    expect(fakes.putPart.calls[0]!.body).toEqual({
      fields: [{ destination: 'firstName', kind: 'source', source: 'First name' }, { destination: 'lastName', kind: 'ignored' }],
      selectedFields: ['firstName', 'lastName'],
    });
  });

  it('a destination of more than 200 fields needs a selection before mapping', async () => {
    const many: FieldInfo[] = Array.from({ length: 201 }, (_, i) => ({ name: `field${i + 1}`, label: `Field ${i + 1}`, type: 'string' }));
    const fakes = fakeServices({ destination: many });
    const { user } = renderStep(fakes.services);
    const picker = await screen.findByRole('group', { name: 'Fields to map' });
    expect(within(picker).getByRole('alert').textContent).toBe('Select the fields to map: the destination has more than 200 fields');
    expect(screen.queryByRole('table', { name: 'Destination fields' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    expect(within(await screen.findByRole('alert', { name: /Mapping Errors/ })).getByText('Select the fields to map: the destination has more than 200 fields')).toBeTruthy();

    await user.click(within(picker).getByRole('checkbox', { name: 'Field 7' }));
    await table();
    await mapFrom(user, 'Field 7', 'Email');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await waitFor(() => expect(fakes.putPart.calls).toHaveLength(4));
    expect(fakes.putPart.calls[0]!.body).toEqual({ fields: [{ destination: 'field7', kind: 'source', source: 'Email' }], selectedFields: ['field7'] });
  });

  it('a destination of more than 200 fields starts with the suggested fields chosen', async () => {
    const many: FieldInfo[] = [...Array.from({ length: 200 }, (_, i) => ({ name: `field${i + 1}`, label: `Field ${i + 1}`, type: 'string' as const })), { name: 'email', label: 'E-mail', type: 'string' }];
    const fakes = fakeServices({ destination: many });
    renderStep(fakes.services);
    const rows = within(await table()).getAllByRole('row');
    expect(rows).toHaveLength(2);
    expect((screen.getByRole('combobox', { name: 'Source field for E-mail' }) as HTMLSelectElement).value).toBe('Email');
    expect(screen.getByTestId('mapping-suggested').textContent).toContain('1 field was mapped');
  });

  it('says so when a save fails, and stays', async () => {
    const fakes = fakeServices({ fail: { put: new ApiError(500, { title: 'mapping-upsert-failed', detail: 'Mapping could not be saved.' }) } });
    const { user, props } = renderStep(fakes.services);
    await table();
    await mapFrom(user, 'Phone', 'Gift');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    expect(await screen.findByText('An error occured while saving Mapping')).toBeTruthy();
    expect(screen.getByText('Mapping could not be saved.')).toBeTruthy();
    expect(props.onSaved).not.toHaveBeenCalled();
    expect(props.onDirtyChange).toHaveBeenLastCalledWith(true);
  });

  it('is read-only without formula edit permission', async () => {
    const fakes = fakeServices({ parts: { mapping: { fields: [{ destination: 'email', kind: 'source', source: 'Email' }] } } });
    const { user, props } = renderStep(fakes.services, { canEdit: false });
    await table();
    expect(screen.getByText('You do not have editing permission')).toBeTruthy();
    expect((screen.getByRole('combobox', { name: 'How E-mail is filled' }) as HTMLSelectElement).disabled).toBe(true);
    expect((screen.getByRole('combobox', { name: 'Source field for E-mail' }) as HTMLSelectElement).disabled).toBe(true);
    expect(screen.queryByRole('button', { name: 'Save and continue' })).toBeNull();
    // the transforms can be looked at, not changed
    await user.click(screen.getByRole('button', { name: 'Transforms of E-mail' }));
    const editor = await screen.findByRole('dialog', { name: 'Transforms of E-mail' });
    expect(within(editor).queryByRole('group', { name: 'Add a transform' })).toBeNull();
    await user.click(within(editor).getByRole('button', { name: 'Done' }));
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(props.onSaved).toHaveBeenCalledWith();
    expect(fakes.putPart.calls).toEqual([]);
  });
});

describe('load errors name the failing service', () => {
  const failed = async () => {
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Error loading Mapping')).toBeTruthy();
    return [...alert.querySelectorAll('p')].map((p) => p.textContent);
  };

  it.each([
    ['the destination system', { destination: CONNECTION_ERROR }, ['Failed to fetch fields.', 'Destination metadata is temporarily down.']],
    ['the source system', { source: CONNECTION_FAILED }, ['Failed to fetch fields.', 'Source metadata is temporarily down.']],
    ['the integrations service', { destination: SERVER_ERROR, source: new TypeError('Failed to fetch') }, ['Failed to fetch fields.', 'Integrations are temporarily down.']],
    // a refusal is the person's permission, never an outage
    ['a Data Processor, who may not read data sources', { destination: REFUSED, source: REFUSED }, ['Failed to fetch fields.', "You do not have permission to read the fields of this formula's data sources."]],
    ['the mapping configuration', { mapping: PART_FAILED('mapping') }, ['The mapping configuration could not be retrieved.']],
    ['the transform configuration', { transform: PART_FAILED('transform') }, ['The transform configuration could not be retrieved.']],
    ['the validation rules', { validation: PART_FAILED('validation') }, ['The validation rules could not be retrieved.']],
    ['the summary fields', { 'summary-fields': PART_FAILED('summary-fields') }, ['The summary fields could not be retrieved.']],
    ['several', { destination: CONNECTION_ERROR, transform: PART_FAILED('transform') }, ['Failed to fetch fields.', 'Destination metadata is temporarily down.', 'The transform configuration could not be retrieved.']],
  ])('%s', async (_name, fail, messages) => {
    const fakes = fakeServices({ fail });
    const { user } = renderStep(fakes.services);
    expect(await failed()).toEqual(messages);
    expect((screen.getByRole('button', { name: 'Save and continue' }) as HTMLButtonElement).disabled).toBe(true);
    for (const key of Object.keys(fail)) fakes.heal(key);
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await table();
    expect(screen.queryByText('Error loading Mapping')).toBeNull();
  });

  it('a file-upload formula\'s fields are its sample\'s columns: without the sample, the source is down', async () => {
    const fakes = fakeServices({ fail: { sample: CONNECTION_ERROR } });
    renderStep(fakes.services, { formula: formulaOf({ usesFileUpload: true, sourceDataSource: null, sampleUploadId: '6b2f0c4e-8a7d-4b1e-9f3a-2c5d7e9a1b4f' }) });
    expect(await failed()).toEqual(['Failed to fetch fields.', 'Source metadata is temporarily down.']);
    // its source has no fields call of its own
    expect(fakes.fields.calls).toEqual([{ dataSourceId: CRM.id, object: 'constituents' }]);
  });

  it('a file-upload formula maps from its sample\'s columns', async () => {
    const fakes = fakeServices();
    const { user } = renderStep(fakes.services, { formula: formulaOf({ usesFileUpload: true, sourceDataSource: null }) });
    await table();
    await user.selectOptions(screen.getByRole('combobox', { name: 'How E-mail is filled' }), 'From source field');
    const options = within(screen.getByRole('combobox', { name: 'Source field for E-mail' })).getAllByRole('option').map((o) => o.textContent);
    expect(options).toEqual(['Choose a field', ...SAMPLE.fields]);
  });

  it('without the sample, the mapping goes on and only the preview says so', async () => {
    const fakes = fakeServices({ fail: { sample: CONNECTION_ERROR } });
    const { user } = renderStep(fakes.services);
    await table();
    expect(screen.getByText(/The sample rows could not be loaded\./)).toBeTruthy();
    fakes.heal('sample');
    await user.click(screen.getByRole('button', { name: 'Load the sample again' }));
    await mapFrom(user, 'E-mail', 'Email');
    expect(cell(1, 'email').textContent).toBe('ada@example.org');
  });

  it('reads the sample again through the services its editor was given, keeping a change made without it', async () => {
    const fakes = fakeServices({ fail: { sample: CONNECTION_ERROR } });
    const { user, props } = renderStep(fakes.services);
    await table();
    await mapFrom(user, 'E-mail', 'Email');
    expect(screen.getByText(/The sample rows could not be loaded\./)).toBeTruthy();
    fakes.heal('sample');
    await user.click(screen.getByRole('button', { name: 'Load the sample again' }));
    await waitFor(() => expect(cell(1, 'email').textContent).toBe('ada@example.org'));
    expect(fakes.sample.calls).toEqual([FORMULA_ID, FORMULA_ID]);
    // the change is still the editor's draft, unsaved
    expect(screen.getByRole('combobox', { name: 'Source field for E-mail' })).toHaveProperty('value', 'Email');
    expect(props.editor!.getSnapshot().matches('editing')).toBe(true);
  });

  it('shows its layout while loading, then the answer', async () => {
    const fakes = fakeServices();
    const slow = fakeCall<{ dataSourceId: string; object: string }, { object: string; fields: FieldInfo[] }>('fields');
    const services = { ...fakes.services, integrations: { ...fakes.services.integrations, fields: (dataSourceId: string, object: string) => slow.call({ dataSourceId, object }) } } as StepCalls;
    renderStep(services);
    expect(screen.getByRole('status', { name: 'Loading the mapping…' })).toBeTruthy();
    expect(await slow.called()).toEqual({ dataSourceId: CRM.id, object: 'constituents' });
    await act(async () => slow.resolve({ object: 'constituents', fields: DESTINATION }));
    await act(async () => slow.reject(CONNECTION_ERROR));
    expect(await failed()).toEqual(['Failed to fetch fields.', 'Source metadata is temporarily down.']);
  });

  it('without a destination, sends the user back to choose one', async () => {
    const fakes = fakeServices();
    const { user, props } = renderStep(fakes.services, { formula: formulaOf({ firstDestinationDataSource: null }) });
    await user.click(screen.getByRole('button', { name: 'Go to Data sources' }));
    expect(props.onGoTo).toHaveBeenCalledWith('data-sources');
    expect(fakes.fields.calls).toEqual([]);
  });
});
