/**
 * The Formula Wizard's setup steps on their own, with fake services (the step's editor over them):
 * data sources (name, source and destination, only systems in their role, settings a system
 * cannot start without, 'Go to Connections', an upload when the uploads cannot be listed), formula type (a changed object asks before wiping
 * and only confirmWipe saves; a folder's name pattern; an upload as the sample; the Salesforce
 * report id's three errors), additional settings rendered from the catalogue's schemas, refusing
 * invalid values (Salesforce's top-level object changes the object), scheduling (time, weekly
 * day, run once of at most 30 days), the review with a link back to each step and its printout,
 * and processing (what is missing, then activation).
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { Notifications, notifications } from '@mantine/notifications';
import type { ComponentType } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONNECTION_FIELD_MESSAGE } from '../../src/domain/connectors/fields.ts';
import type { DataSourceListItem, ObjectInfo, SystemId } from '../../src/domain/connectors/types.ts';
import { FORMULA_PART_NAMES, PART_MESSAGES, type FormulaPartName } from '../../src/domain/formula/parts.ts';
import type { WizardStep } from '../../src/domain/formula/wizard.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { PrintFormulaReviewPage } from '../../src/views/wizard/PrintFormulaReview.tsx';
import { printReviewOver } from '../../src/machines/printReview.ts';
import type { StepProps } from '../../src/views/wizard/step.tsx';
import type { StepCalls } from '../../src/machines/wizardSteps.ts';
import { AdditionalSettingsStep } from '../../src/views/wizard/steps/AdditionalSettingsStep.tsx';
import { DataSourcesStep, NO_SOURCE_MESSAGE, UPLOADS_UNREADABLE_MESSAGE } from '../../src/views/wizard/steps/DataSourcesStep.tsx';
import { FormulaTypeStep } from '../../src/views/wizard/steps/FormulaTypeStep.tsx';
import { ProcessingStep } from '../../src/views/wizard/steps/ProcessingStep.tsx';
import { ReviewStep } from '../../src/views/wizard/steps/ReviewStep.tsx';
import { browserTimeZone, RUN_ONCE_DRAFT_NOTE, RUN_ONCE_NOTE, SchedulingStep } from '../../src/views/wizard/steps/SchedulingStep.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { ALL_PARTS, VALID_PARTS } from '../support/formulaParts.ts';
import { startStepEditor } from '../support/stepEditors.ts';

afterEach(() => {
  cleanup();
  notifications.clean();
});

const FORMULA_ID = '3f6c8a52-0c1e-4d1a-9a57-6c0f8e2b7d10';
const ds = (id: string, system: SystemId, displayName: string): DataSourceListItem => ({
  id, system, displayName, createdOn: '2026-11-01T09:00:00.000Z', createdBy: null, modifiedOn: '2026-11-01T09:00:00.000Z', modifiedBy: null, usedByCount: 0,
});
const CRM = ds('22222222-2222-4222-8222-222222222222', 'sandbox-crm', 'Sandbox CRM');
const SFTP = ds('11111111-1111-4111-8111-111111111111', 'sftp', 'Partner SFTP');
const UPLOADS = ds('33333333-3333-4333-8333-333333333333', 'file-upload', 'Uploads');
const SALESFORCE = ds('44444444-4444-4444-8444-444444444444', 'salesforce', 'Org Salesforce');
const HTTP = ds('55555555-5555-4555-8555-555555555555', 'http', 'Donations API');
const RENXT = ds('66666666-6666-4666-8666-666666666666', 'renxt', "Raiser's Edge NXT");

type End = NonNullable<FormulaView['sourceDataSource']>;
const end = (d: DataSourceListItem, object: string, settings: Record<string, string> = {}, hasAdditionalSettings = false): End =>
  ({ dataSourceId: d.id, object, settings, system: d.system, displayName: d.displayName, hasAdditionalSettings });

const formulaOf = (over: Partial<FormulaView> = {}): FormulaView => ({
  id: FORMULA_ID, name: 'Spring appeal', isDraft: true, usesFileUpload: false,
  sourceDataSource: end(CRM, 'constituents'), firstDestinationDataSource: end(CRM, 'constituents', {}, true),
  sampleUploadId: null, status: 'inactive', jobStatus: null, needsReprocess: false, archivedOn: null, parts: [],
  createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-01T00:00:00Z', ...over,
});

const OBJECTS: Record<string, ObjectInfo[]> = {
  [CRM.id]: [{ name: 'constituents', label: 'Constituents' }, { name: 'gifts', label: 'Gifts' }],
  [SFTP.id]: [{ name: '*', label: 'All files (2)' }, { name: 'donations.csv', label: 'donations.csv (1.2 KB)' }],
  [SALESFORCE.id]: [{ name: 'Contact', label: 'Contacts' }, { name: 'Account', label: 'Accounts' }],
};

interface Fakes {
  update: FakeCall<{ id: string; body: Record<string, unknown> }, FormulaView>;
  activate: FakeCall<string, FormulaView>;
  putPart: FakeCall<{ part: string; body: unknown }, unknown>;
  runOnce: FakeCall<{ id: string; runOnce: unknown }, unknown>;
  report: FakeCall<{ dataSourceId: string; reportId: string }, { reportId: string; name: string; dateFilterColumn: string }>;
  objects: ReturnType<typeof vi.fn>;
  list: ReturnType<typeof vi.fn>;
  get: ReturnType<typeof vi.fn>;
  getPart: ReturnType<typeof vi.fn>;
}

/** Fake services: the calls a test drives wait for its answer; reads answer at once. */
function fakeServices(opts: { dataSources?: DataSourceListItem[]; parts?: Partial<Record<FormulaPartName, unknown>>; formula?: FormulaView } = {}) {
  const fakes: Fakes = {
    update: fakeCall('update'),
    activate: fakeCall('activate'),
    putPart: fakeCall('putPart'),
    runOnce: fakeCall('runOnce'),
    report: fakeCall('checkSalesforceReport'),
    list: vi.fn(async () => opts.dataSources ?? [CRM, SFTP, UPLOADS, SALESFORCE]),
    objects: vi.fn(async (id: string) => ({ objects: OBJECTS[id] ?? [], refreshedOn: '2026-11-22T10:00:00.000Z' })),
    get: vi.fn(async () => opts.formula ?? formulaOf()),
    getPart: vi.fn(async (_id: string, part: FormulaPartName) => opts.parts?.[part] ?? null),
  };
  const services = {
    formulas: {
      get: fakes.get,
      update: (id: string, body: Record<string, unknown>) => fakes.update.call({ id, body }),
      activate: (id: string) => fakes.activate.call(id),
      sample: vi.fn(),
      getPart: fakes.getPart,
      putPart: (_id: string, part: string, body: unknown) => fakes.putPart.call({ part, body }),
      runOnce: (id: string, runOnce: unknown) => fakes.runOnce.call({ id, runOnce }),
      deletePart: vi.fn(),
    },
    integrations: {
      list: fakes.list,
      objects: fakes.objects,
      refreshObjects: fakes.objects,
      fields: vi.fn(),
      checkSalesforceReport: (dataSourceId: string, reportId: string) => fakes.report.call({ dataSourceId, reportId }),
    },
  } as unknown as StepCalls;
  return { services, fakes };
}

function renderStep(Step: ComponentType<StepProps>, step: WizardStep, formula: FormulaView, services: StepCalls, over: Partial<StepProps> = {}) {
  const props: StepProps = {
    step, formula, customRouting: false, canEdit: true,
    onDirtyChange: vi.fn(), onSaved: vi.fn(), onFormulaChange: vi.fn(), onBack: vi.fn(), onGoTo: vi.fn(), ...over,
  };
  // a step that loads and saves through an editor gets one over the same fake services
  props.editor ??= startStepEditor(step, formula, services, props);
  render(
    <MantineProvider>
      <Notifications />
      <Step {...props} />
    </MantineProvider>,
  );
  return { props, user: userEvent.setup() };
}

/** a catalogue choice (Mantine's Select) by its label */
const choiceInput = (label: string) => screen.getByLabelText(label, { selector: 'input' }) as HTMLInputElement;
const select = (name: RegExp) => screen.getByRole('combobox', { name }) as HTMLSelectElement;
const problem = (status: number, title: string, extra: Record<string, unknown> = {}) => new ApiError(status, { status, title, ...extra }, { silent: true });

describe('data sources', () => {
  it('saves the name, a source and a destination, each system only in a role it has', async () => {
    const { services, fakes } = fakeServices();
    const blank = formulaOf({ name: null, sourceDataSource: null, firstDestinationDataSource: null });
    const { props, user } = renderStep(DataSourcesStep, 'data-sources', blank, services);

    await waitFor(() => expect(select(/^Source/).options.length).toBeGreaterThan(1));
    const names = (s: HTMLSelectElement) => Array.from(s.options).filter((o) => o.value).map((o) => o.textContent);
    expect(names(select(/^Source/))).toEqual(['Sandbox CRM (Sandbox CRM)', 'Partner SFTP (Secure FTP)', 'Uploads (File upload)', 'Org Salesforce (Salesforce)']);
    // Secure FTP and file uploads can only be read from
    expect(names(select(/^Destination/))).toEqual(['Sandbox CRM (Sandbox CRM)', 'Org Salesforce (Salesforce)']);

    // the name is required (FormulaNameSchema's message), and nothing is sent without it
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    expect(await screen.findByText('Give the formula a name')).toBeTruthy();
    expect(screen.getAllByText('Choose a data source')).toBeTruthy();
    expect(fakes.update.calls).toHaveLength(0);

    await user.type(screen.getByRole('textbox', { name: /^Formula name/ }), '  Partner donations ');
    await user.selectOptions(select(/^Source/), SFTP.id);
    await user.selectOptions(select(/^Destination/), CRM.id);
    expect(props.onDirtyChange).toHaveBeenLastCalledWith(true);
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));

    // a folder starts with the first object it lists (every file); the CRM with its first standard object
    const { body } = await fakes.update.called();
    expect(fakes.objects).toHaveBeenCalledWith(SFTP.id, expect.anything());
    expect(body).toEqual({
      name: 'Partner donations',
      source: { dataSourceId: SFTP.id, object: '*', settings: { afterRead: 'leave' } },
      destination: { dataSourceId: CRM.id, object: 'constituents', settings: { onMatch: 'overwrite', blankValues: 'keep' } },
      sampleUploadId: null,
    });
    const saved = formulaOf({ name: 'Partner donations', sourceDataSource: end(SFTP, '*', {}, true) });
    await fakes.update.answer({ type: 'xstate.done.actor.update', output: saved });
    await waitFor(() => expect(props.onSaved).toHaveBeenCalledWith(saved));
    expect(await screen.findByText('Data sources has been saved')).toBeTruthy();
  });

  it('offers Go to Connections when the tenant has no data source that can be a source', async () => {
    const { services } = fakeServices({ dataSources: [] });
    renderStep(DataSourcesStep, 'data-sources', formulaOf({ sourceDataSource: null, firstDestinationDataSource: null }), services);
    expect(await screen.findByText(NO_SOURCE_MESSAGE)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Go to Connections' }).getAttribute('href')).toBe('/connections');
  });

  it('offers an upload when the uploads cannot be listed, so the formula can still get its sample', async () => {
    const { services, fakes } = fakeServices();
    fakes.objects.mockImplementation(async () => { throw problem(403, 'forbidden'); });
    const { user } = renderStep(DataSourcesStep, 'data-sources', formulaOf({ sourceDataSource: null }), services);
    await waitFor(() => expect(select(/^Source/).options.length).toBeGreaterThan(1));
    await user.selectOptions(select(/^Source/), UPLOADS.id);
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    expect(await screen.findByText(UPLOADS_UNREADABLE_MESSAGE)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Upload a new file' })).toBeTruthy();
    expect(fakes.update.calls).toHaveLength(0);
  });

  it('asks for the settings a system cannot start without before it is saved in its role', async () => {
    const MAILCHIMP = ds('66666666-6666-4666-8666-666666666666', 'mailchimp', 'Newsletter');
    const { services, fakes } = fakeServices({ dataSources: [CRM, MAILCHIMP] });
    const { user } = renderStep(DataSourcesStep, 'data-sources', formulaOf(), services);
    await waitFor(() => expect(select(/^Destination/).value).toBe(CRM.id));
    await user.selectOptions(select(/^Destination/), MAILCHIMP.id);
    const needed = screen.getByRole('group', { name: 'Newsletter needs these settings as a destination' });
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    expect(await within(needed).findByText(CONNECTION_FIELD_MESSAGE)).toBeTruthy();
    expect(fakes.update.calls).toHaveLength(0);
    await user.type(within(needed).getByRole('textbox', { name: /^Audience ID/ }), 'a1b2c3');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    expect((await fakes.update.called()).body).toEqual({
      name: 'Spring appeal', destination: { dataSourceId: MAILCHIMP.id, object: 'lists', settings: { audienceId: 'a1b2c3', status: 'subscribed' } },
    });
  });

  it('asks before a new data source wipes the mapping, and keeps an unchanged one as it is', async () => {
    const { services, fakes } = fakeServices();
    const formula = formulaOf({ parts: ['mapping', 'matching', 'routing'] });
    const { props, user } = renderStep(DataSourcesStep, 'data-sources', formula, services);
    await waitFor(() => expect(select(/^Source/).value).toBe(CRM.id));
    await user.selectOptions(select(/^Source/), SALESFORCE.id);
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    // Salesforce's settings name the object too; the destination did not change, so it is not sent
    const first = await fakes.update.called();
    expect(first.body).toEqual({ name: 'Spring appeal', source: { dataSourceId: SALESFORCE.id, object: 'Account', settings: { object: 'Account' } }, sampleUploadId: null });
    await fakes.update.answer({ type: 'xstate.error.actor.update', error: problem(409, 'formula-wipe-unconfirmed', { wipes: ['mapping', 'matching', 'routing'] }) });
    const dialog = await screen.findByRole('dialog', { name: 'Changing the object wipes the mapping, matching and routing.' });
    await user.click(within(dialog).getByRole('button', { name: 'Change and remove them' }));
    expect((await fakes.update.called()).body).toEqual({ ...first.body, confirmWipe: true });
    await fakes.update.answer({ type: 'xstate.done.actor.update', output: formula });
    await waitFor(() => expect(props.onSaved).toHaveBeenCalled());
  });
});

describe('formula type', () => {
  it('asks before a changed object wipes mapping, matching and routing; only a confirmation saves it', async () => {
    const { services, fakes } = fakeServices();
    const formula = formulaOf({ parts: ['mapping', 'matching', 'routing', 'autosend'] });
    const { props, user } = renderStep(FormulaTypeStep, 'formula-types', formula, services);
    await waitFor(() => expect(select(/^Destination object/).options.length).toBe(3));
    await user.selectOptions(select(/^Destination object/), 'gifts');
    expect(props.onDirtyChange).toHaveBeenLastCalledWith(true);

    const save = () => user.click(screen.getByRole('button', { name: 'Save and continue' }));
    const wipes = problem(409, 'formula-wipe-unconfirmed', { wipes: ['mapping', 'matching', 'routing'] });
    await save();
    const first = await fakes.update.called();
    expect(first.body).toEqual({ destination: { dataSourceId: CRM.id, object: 'gifts', settings: {} } });
    await fakes.update.answer({ type: 'xstate.error.actor.update', error: wipes });

    // the confirmation names what goes; cancelling keeps everything
    let dialog = await screen.findByRole('dialog', { name: 'Changing the object wipes the mapping, matching and routing.' });
    const listed = within(within(dialog).getByRole('list', { name: 'Parts that will be removed' })).getAllByRole('listitem').map((li) => li.textContent);
    expect(listed).toEqual(['Mapping', 'Record Match Search', 'Routing']);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(fakes.update.calls).toHaveLength(1);
    expect(props.onSaved).not.toHaveBeenCalled();
    expect(screen.queryByText('An error occured while saving Formula type')).toBeNull();

    // asked again, confirmed: the same change with confirmWipe
    await save();
    await fakes.update.answer({ type: 'xstate.error.actor.update', error: wipes });
    dialog = await screen.findByRole('dialog', { name: 'Changing the object wipes the mapping, matching and routing.' });
    await user.click(within(dialog).getByRole('button', { name: 'Change and remove them' }));
    const confirmed = await fakes.update.called();
    expect(confirmed.body).toEqual({ ...first.body, confirmWipe: true });
    const saved = formulaOf({ firstDestinationDataSource: end(CRM, 'gifts', {}, true), parts: ['autosend'] });
    await fakes.update.answer({ type: 'xstate.done.actor.update', output: saved });
    await waitFor(() => expect(props.onSaved).toHaveBeenCalledWith(saved));
    expect(fakes.update.calls.map((c) => c.body.confirmWipe)).toEqual([undefined, undefined, true]);
  });

  it('checks a Salesforce report id: Invalid Report ID, Add Date Filter, Missing Access', async () => {
    const { services, fakes } = fakeServices();
    const formula = formulaOf({ sourceDataSource: end(SALESFORCE, 'Contact', { object: 'Contact' }, true) });
    const { props, user } = renderStep(FormulaTypeStep, 'formula-types', formula, services);
    await waitFor(() => expect(select(/^Source object/).value).toBe('Contact'));
    await user.click(screen.getByRole('checkbox', { name: /Read the rows of a report/ }));
    const input = screen.getByRole('textbox', { name: /^Report ID/ });
    const check = () => user.click(screen.getByRole('button', { name: 'Check report' }));
    const errorOf = () => document.getElementById(input.getAttribute('aria-describedby')!.split(' ').find((id) => id.includes('error'))!)?.textContent;

    // not an id of the Report object at all: refused without asking Salesforce
    await user.type(input, 'abc');
    await check();
    await waitFor(() => expect(errorOf()).toBe('Invalid Report ID'));
    expect(fakes.report.calls).toHaveLength(0);

    const cases: [string, string][] = [['report-date-filter', 'Add Date Filter'], ['report-missing-access', 'Missing Access'], ['invalid-report-id', 'Invalid Report ID']];
    for (const [title, message] of cases) {
      await user.clear(input);
      await user.type(input, '00O5g00000AbCdE');
      await check();
      expect(await fakes.report.called()).toEqual({ dataSourceId: SALESFORCE.id, reportId: '00O5g00000AbCdE' });
      await fakes.report.answer({ type: 'xstate.error.actor.report', error: problem(422, title) });
      await waitFor(() => expect(errorOf()).toBe(message));
      expect(input.getAttribute('aria-invalid')).toBe('true');
    }
    // an invalid report is never saved
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await fakes.report.answer({ type: 'xstate.error.actor.report', error: problem(422, 'report-missing-access') });
    await waitFor(() => expect(errorOf()).toBe('Missing Access'));
    expect(fakes.update.calls).toHaveLength(0);

    // a valid one is kept in the source's settings
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    await fakes.report.answer({ type: 'xstate.done.actor.report', output: { reportId: '00O5g00000AbCdE', name: 'Spring donors', dateFilterColumn: 'CreatedDate' } });
    const { body } = await fakes.update.called();
    expect(body).toEqual({ source: { dataSourceId: SALESFORCE.id, object: 'Contact', settings: { object: 'Contact', reportId: '00O5g00000AbCdE' } } });
    await fakes.update.answer({ type: 'xstate.done.actor.update', output: formula });
    await waitFor(() => expect(props.onSaved).toHaveBeenCalled());
  });

  it('reads a folder\'s files by a name pattern', async () => {
    const { services, fakes } = fakeServices();
    const formula = formulaOf({ sourceDataSource: end(SFTP, '*', { afterRead: 'leave' }, true) });
    const { user } = renderStep(FormulaTypeStep, 'formula-types', formula, services);
    await waitFor(() => expect(select(/^Source object/).value).toBe('*'));
    await user.selectOptions(select(/^Source object/), 'Files whose names match a pattern…');
    const pattern = screen.getByRole('textbox', { name: /^File name pattern/ });
    await user.type(pattern, 'in/donations-*.csv');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    expect(await screen.findByText(/Enter a file name, with \* for any characters/)).toBeTruthy();
    await user.clear(pattern);
    await user.type(pattern, 'donations-*.csv');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    expect((await fakes.update.called()).body).toEqual({ source: { dataSourceId: SFTP.id, object: 'donations-*.csv', settings: { afterRead: 'leave' } } });
  });

  it('takes a file-upload formula\'s sample from one of the uploads', async () => {
    const { services, fakes } = fakeServices();
    const a = { name: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', label: 'spring.csv (2026-11-20)' };
    const b = { name: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', label: 'autumn.csv (2026-11-21)' };
    OBJECTS[UPLOADS.id] = [b, a];
    const formula = formulaOf({ usesFileUpload: true, sampleUploadId: a.name, sourceDataSource: end(UPLOADS, a.name) });
    const { user } = renderStep(FormulaTypeStep, 'formula-types', formula, services);
    await waitFor(() => expect(select(/^Sample file/).value).toBe(a.name));
    // a new file is uploaded on the upload screen, opened in a dialog
    await user.click(screen.getByRole('button', { name: 'Upload a new file' }));
    const dialog = await screen.findByRole('dialog', { name: 'Upload a sample file' });
    expect(await within(dialog).findByTestId('upload-dropzone')).toBeTruthy();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await user.selectOptions(select(/^Sample file/), b.name);
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    expect((await fakes.update.called()).body).toEqual({ source: { dataSourceId: UPLOADS.id, object: b.name, settings: {} }, sampleUploadId: b.name });
  });
});

describe('additional settings', () => {
  it('renders the Sandbox CRM destination\'s settings from its schema and saves them', async () => {
    const { services, fakes } = fakeServices();
    const formula = formulaOf();
    const { props, user } = renderStep((p) => <AdditionalSettingsStep {...p} role="destination" />, 'additional-settings-destination', formula, services);
    const onMatch = choiceInput('When a record matches');
    expect(onMatch.value).toBe('Overwrite existing values');
    expect(choiceInput('Blank incoming values')).toBeTruthy();
    await user.click(onMatch);
    await user.click(await screen.findByRole('option', { name: 'Fill blank fields only', hidden: true }));
    // blanks only matter when values are overwritten
    await waitFor(() => expect(screen.queryByLabelText('Blank incoming values', { selector: 'input' })).toBeNull());
    expect(props.onDirtyChange).toHaveBeenLastCalledWith(true);
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    expect((await fakes.update.called()).body).toEqual({ destination: { dataSourceId: CRM.id, object: 'constituents', settings: { onMatch: 'fill-blanks' } } });
    await fakes.update.answer({ type: 'xstate.done.actor.update', output: formula });
    expect(await screen.findByText('Destination settings has been saved')).toBeTruthy();
  });

  it('offers a Raiser\'s Edge NXT destination only the settings of its object: no gift batch prefix for constituents', async () => {
    const { services, fakes } = fakeServices();
    const constituents = formulaOf({ firstDestinationDataSource: end(RENXT, 'constituents', { giftBatchPrefix: 'Old' }, true) });
    const { user } = renderStep((p) => <AdditionalSettingsStep {...p} role="destination" />, 'additional-settings-destination', constituents, services);
    expect(screen.getByLabelText('Constituent code for new constituents')).toBeTruthy();
    expect(choiceInput('When a record matches')).toBeTruthy();
    expect(screen.queryByLabelText('Gift batch prefix')).toBeNull();
    await user.type(screen.getByLabelText('Constituent code for new constituents'), 'Donor');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    // a gift's setting is not sent with a constituents formula
    expect((await fakes.update.called()).body).toEqual({
      destination: { dataSourceId: RENXT.id, object: 'constituents', settings: { constituentCode: 'Donor', onMatch: 'overwrite', blankValues: 'keep' } },
    });
    cleanup();

    const gifts = formulaOf({ firstDestinationDataSource: end(RENXT, 'gifts', {}, true) });
    renderStep((p) => <AdditionalSettingsStep {...p} role="destination" />, 'additional-settings-destination', gifts, services);
    expect(screen.getByLabelText('Gift batch prefix')).toBeTruthy();
    expect(screen.queryByLabelText('Constituent code for new constituents')).toBeNull();
  });

  it('refuses invalid Secure FTP source settings until they are corrected', async () => {
    const { services, fakes } = fakeServices();
    const formula = formulaOf({ sourceDataSource: end(SFTP, '*', {}, true) });
    const { user } = renderStep((p) => <AdditionalSettingsStep {...p} role="source" />, 'additional-settings-source', formula, services);
    await user.click(choiceInput('After a file is read'));
    await user.click(await screen.findByRole('option', { name: 'Move it to another folder', hidden: true }));
    const folder = await screen.findByRole('textbox', { name: /^Move processed files to/ });
    const save = () => user.click(screen.getByRole('button', { name: 'Save and continue' }));

    await save();
    expect(await screen.findByText(CONNECTION_FIELD_MESSAGE)).toBeTruthy();
    await user.type(folder, 'processed');
    await save();
    expect(await screen.findByText('Enter an absolute folder path, starting with /.')).toBeTruthy();
    expect(fakes.update.calls).toHaveLength(0);

    await user.clear(folder);
    await user.type(folder, '/processed');
    await save();
    expect((await fakes.update.called()).body).toEqual({ source: { dataSourceId: SFTP.id, object: '*', settings: { afterRead: 'move', processedFolder: '/processed' } } });
  });

  it('changes the object with Salesforce\'s top-level object setting, asking before the wipe', async () => {
    const { services, fakes } = fakeServices();
    const formula = formulaOf({ sourceDataSource: end(SALESFORCE, 'Contact', { object: 'Contact' }, true), parts: ['mapping'] });
    const { props, user } = renderStep((p) => <AdditionalSettingsStep {...p} role="source" />, 'additional-settings-source', formula, services);
    const object = screen.getByRole('textbox', { name: /^Top-level object/ });
    expect((object as HTMLInputElement).value).toBe('Contact');
    await user.clear(object);
    await user.type(object, 'Account');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    const { body } = await fakes.update.called();
    expect(body).toEqual({ source: { dataSourceId: SALESFORCE.id, object: 'Account', settings: { object: 'Account' } } });
    await fakes.update.answer({ type: 'xstate.error.actor.update', error: problem(409, 'formula-wipe-unconfirmed', { wipes: ['mapping'] }) });
    const dialog = await screen.findByRole('dialog', { name: 'Changing the object wipes the mapping, matching and routing.' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(fakes.update.calls).toHaveLength(1);
    expect(props.onSaved).not.toHaveBeenCalled();
  });

  it('shows the server\'s refusal of an HTTP source setting under its field', async () => {
    const { services, fakes } = fakeServices();
    const formula = formulaOf({ sourceDataSource: end(HTTP, 'records', {}, true) });
    const { user } = renderStep((p) => <AdditionalSettingsStep {...p} role="source" />, 'additional-settings-source', formula, services);
    const after = screen.getByRole('textbox', { name: 'Only records changed after' });
    await user.type(after, '31/01/2026');
    await user.tab();
    expect(await screen.findByText('Enter a date as YYYY-MM-DD.')).toBeTruthy();
    await user.clear(after);
    await user.type(after, '2026-01-31');
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    expect((await fakes.update.called()).body).toEqual({ source: { dataSourceId: HTTP.id, object: 'records', settings: { changedAfter: '2026-01-31' } } });
    await fakes.update.answer({
      type: 'xstate.error.actor.update',
      error: problem(400, 'bad-request', { detail: 'Not accepted.', errors: { 'source.settings.changedAfter': 'The API refuses dates before 2020.' } }),
    });
    expect(await screen.findByText('The API refuses dates before 2020.')).toBeTruthy();
    expect(await screen.findByText('An error occured while saving Source settings')).toBeTruthy();
  });
});

describe('scheduling', () => {
  it('checks the time, the weekly day and a run-once range of at most 30 days, then saves the schedule and runs once over the range', async () => {
    const live = formulaOf({ isDraft: false, status: 'active', parts: ['mapping', 'matching', 'routing'] });
    const { services, fakes } = fakeServices({ formula: { ...live, parts: [...live.parts, 'schedule'] } });
    const { props, user } = renderStep(SchedulingStep, 'scheduling', live, services);
    const time = await screen.findByRole('textbox', { name: /^Time/ });
    // a new schedule starts in the browser's own time zone
    expect(select(/^Time zone/).value).toBe(browserTimeZone());
    const save = () => user.click(screen.getByRole('button', { name: 'Save and continue' }));

    await user.clear(time);
    await user.type(time, '25:00');
    await save();
    expect(await screen.findByText(PART_MESSAGES.time)).toBeTruthy();

    await user.click(screen.getByRole('radio', { name: 'Weekly' }));
    await save();
    expect(await screen.findByText(PART_MESSAGES.weekday)).toBeTruthy();
    await user.selectOptions(select(/^Day of the week/), 'monday');
    await user.clear(time);
    await user.type(time, '06:30');

    await user.click(screen.getByRole('checkbox', { name: /collect the records of a date range once/ }));
    expect(screen.getByText(new RegExp(RUN_ONCE_NOTE))).toBeTruthy();
    fireEvent.change(screen.getByLabelText(/^From/), { target: { value: '2026-01-01' } });
    fireEvent.change(screen.getByLabelText(/^To/), { target: { value: '2026-03-01' } });
    await save();
    expect(await screen.findByText(PART_MESSAGES.runOnceRange)).toBeTruthy();
    expect(screen.queryByText(PART_MESSAGES.time)).toBeNull();
    expect(screen.queryByText(PART_MESSAGES.weekday)).toBeNull();
    expect(fakes.putPart.calls).toHaveLength(0);

    fireEvent.change(screen.getByLabelText(/^To/), { target: { value: '2026-01-31' } });
    await save();
    expect(await fakes.putPart.called()).toEqual({ part: 'schedule', body: { mode: 'scheduled', frequency: 'weekly', day: 'monday', time: '06:30', timeZone: browserTimeZone() } });
    await fakes.putPart.answer({ type: 'xstate.done.actor.putPart', output: {} });
    // the range is no part: saved with the schedule, it is one run over those dates
    expect(await fakes.runOnce.called()).toEqual({ id: FORMULA_ID, runOnce: { from: '2026-01-01', to: '2026-01-31' } });
    await fakes.runOnce.answer({ type: 'xstate.done.actor.runOnce', output: {} });
    await waitFor(() => expect(props.onSaved).toHaveBeenCalledWith({ ...live, parts: [...live.parts, 'schedule'] }));
  });

  it('counts a change of the run once range alone as unsaved, and offers no run once on a draft', async () => {
    const saved = formulaOf({ isDraft: false, status: 'active', parts: ['mapping', 'matching', 'routing', 'schedule'] });
    const { services, fakes } = fakeServices({ parts: { schedule: VALID_PARTS.schedule } });
    const { props, user } = renderStep(SchedulingStep, 'scheduling', saved, services);
    await waitFor(() => expect(select(/^Day of the week/).value).toBe('monday'));
    // the saved schedule as it is: nothing to ask about on leaving
    expect(props.onDirtyChange).not.toHaveBeenCalledWith(true);
    await user.click(screen.getByRole('checkbox', { name: /collect the records of a date range once/ }));
    fireEvent.change(screen.getByLabelText(/^From/), { target: { value: '2026-02-01' } });
    fireEvent.change(screen.getByLabelText(/^To/), { target: { value: '2026-02-10' } });
    expect(props.onDirtyChange).toHaveBeenLastCalledWith(true);
    // turned off again, the step is as saved
    await user.click(screen.getByRole('checkbox', { name: /collect the records of a date range once/ }));
    expect(props.onDirtyChange).toHaveBeenLastCalledWith(false);
    expect(fakes.runOnce.calls).toHaveLength(0);
    cleanup();

    renderStep(SchedulingStep, 'scheduling', formulaOf(), fakeServices().services);
    await screen.findByRole('textbox', { name: /^Time/ });
    expect(screen.getByText(RUN_ONCE_DRAFT_NOTE)).toBeTruthy();
    expect(screen.queryByRole('checkbox', { name: /collect the records of a date range once/ })).toBeNull();
  });

  it('saves a continuous schedule, and shows a saved one as it is', async () => {
    const { services, fakes } = fakeServices({ parts: { schedule: VALID_PARTS.schedule } });
    const { user } = renderStep(SchedulingStep, 'scheduling', formulaOf({ parts: ['schedule'] }), services);
    await waitFor(() => expect(select(/^Day of the week/).value).toBe('monday'));
    expect((screen.getByRole('textbox', { name: /^Time/ }) as HTMLInputElement).value).toBe('06:30');
    expect(select(/^Time zone/).value).toBe('Europe/London');
    await user.click(screen.getByRole('radio', { name: /^Continuously/ }));
    await user.click(screen.getByRole('button', { name: 'Save and continue' }));
    expect(await fakes.putPart.called()).toEqual({ part: 'schedule', body: { mode: 'continuous' } });
  });
});

const COMPLETE = formulaOf({
  sourceDataSource: end(SFTP, '*', { afterRead: 'move', processedFolder: '/done' }, true),
  firstDestinationDataSource: end(CRM, 'constituents', { onMatch: 'fill-blanks' }, true),
  parts: [...FORMULA_PART_NAMES],
});

/** each part's summary, and the step its Edit link opens */
const EXPECTED: [string, RegExp, WizardStep][] = [
  ['Formula name', /Spring appeal \(draft\)/, 'data-sources'],
  ['Source', /Data source: Partner SFTP \(Secure FTP\)Object: All files \(2\)/, 'formula-types'],
  ['Source settings', /After a file is read: Move it to another folderMove processed files to: \/done/, 'additional-settings-source'],
  ['Destination', /Data source: Sandbox CRM \(Sandbox CRM\)Object: Constituents/, 'formula-types'],
  ['Destination settings', /When a record matches: Fill blank fields only/, 'additional-settings-destination'],
  // the destination's fields by their labels (the fake names two of them)
  ['Mapping', /3 fields mapped.*First nameFirst name.*lastNameLast name.*E-mail \(primary\)Email/, 'mapping'],
  ['Transformations', /lastName: change to title case/, 'mapping'],
  ['Validation rules', /email must be an e-mail address; otherwise the record goes to Bad e-mail/, 'mapping'],
  // destination fields by their labels where the destination gives one
  ['Summary fields', /First name, lastName, E-mail \(primary\)/, 'mapping'],
  // one row, two objects: the gift each row also writes, after its constituent
  ['Gift from each row', /Each row that carries a gift also writes it, after its constituent and linked to it.*AmountGift amount.*DateGift date.*FundFund/, 'mapping'],
  ['Record Match Search', /E-mail \(primary\): Email matches E-mail \(primary\); reason: Same e-mail/, 'matching'],
  ['Routing', /Unmatched records: add to Ready.*A single match: Review in Needs Attention/, 'routing'],
  ['Autosend', /Ready records are held for review/, 'routing'],
  ['Scheduling', /Weekly on Monday at 06:30 \(Europe\/London\)/, 'scheduling'],
];

/** the destination names two of its fields */
function labelFields(services: StepCalls) {
  vi.mocked(services.integrations.fields).mockResolvedValue({
    object: 'constituents', fields: [{ name: 'firstName', label: 'First name', type: 'string' }, { name: 'email', label: 'E-mail (primary)', type: 'email' }],
  });
}

describe('review', () => {
  it('summarises every part, each with a link back to its step, and links to the printout', async () => {
    // the wizard's copy of the formula may predate the parts saved since: the server's names them
    const { services } = fakeServices({ parts: ALL_PARTS, formula: COMPLETE });
    labelFields(services);
    const { props, user } = renderStep(ReviewStep, 'review', { ...COMPLETE, parts: [] }, services);
    await screen.findByTestId('formula-summary');
    for (const [title, text, step] of EXPECTED) {
      const section = screen.getByRole('region', { name: title });
      await waitFor(() => expect(section.textContent).toMatch(text));
      await user.click(within(section).getByRole('button', { name: `Edit ${title}` }));
      expect(props.onGoTo, title).toHaveBeenLastCalledWith(step);
    }
    expect(screen.getAllByRole('region')).toHaveLength(EXPECTED.length);
    const print = screen.getByRole('link', { name: /Print the review/ });
    expect(print.getAttribute('href')).toBe(`/${FORMULA_ID}/print-formula-review`);
    expect(print.getAttribute('target')).toBe('_blank');
  });

  it('links routing to custom routing when the flag is on, and says what is not set up yet', async () => {
    const { services } = fakeServices({ parts: {} });
    const { props, user } = renderStep(ReviewStep, 'review', formulaOf(), services, { customRouting: true });
    const routing = await screen.findByRole('region', { name: 'Routing' });
    expect(routing.textContent).toContain('Not set up yet');
    await user.click(within(routing).getByRole('button', { name: 'Edit Routing' }));
    expect(props.onGoTo).toHaveBeenLastCalledWith('custom-routing');
  });

  it('says why the review could not be read, and reads it again with Try again', async () => {
    const { services, fakes } = fakeServices({ parts: ALL_PARTS, formula: COMPLETE });
    fakes.getPart.mockRejectedValueOnce(problem(502, 'connection-error', { detail: 'The formula service did not answer.' }));
    const { user } = renderStep(ReviewStep, 'review', COMPLETE, services);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The review could not be read');
    expect(alert.textContent).toContain('The formula service did not answer.');
    expect(screen.queryByTestId('formula-summary')).toBeNull();
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    await screen.findByTestId('formula-summary');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('prints the same summary on a page of its own, without links back', async () => {
    const { services, fakes } = fakeServices({ parts: ALL_PARTS, formula: COMPLETE });
    labelFields(services);
    const print = vi.spyOn(window, 'print').mockImplementation(() => {});
    const router = createMemoryRouter([{ path: '/:formulaId/print-formula-review', element: <PrintFormulaReviewPage logic={printReviewOver(services)} /> }], { initialEntries: [`/${FORMULA_ID}/print-formula-review`] });
    render(<MantineProvider><RouterProvider router={router} /></MantineProvider>);
    expect(await screen.findByRole('heading', { name: 'Formula review: Spring appeal' })).toBeTruthy();
    expect(fakes.get).toHaveBeenCalledWith(FORMULA_ID, expect.anything());
    await screen.findByTestId('formula-summary');
    for (const [title, text] of EXPECTED) await waitFor(() => expect(screen.getByRole('region', { name: title }).textContent).toMatch(text));
    expect(screen.queryAllByRole('button', { name: /^Edit/ })).toHaveLength(0);
    expect(screen.getByTestId('formula-print').querySelector('style')!.textContent).toContain('@media print');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Print' }));
    expect(print).toHaveBeenCalledOnce();
    print.mockRestore();
  });
});

describe('processing', () => {
  it('shows what an incomplete draft misses, each a link to its step, then activates it', async () => {
    const { services, fakes } = fakeServices();
    const { props, user } = renderStep(ProcessingStep, 'processing', formulaOf(), services);
    const activate = () => user.click(screen.getByRole('button', { name: 'Activate the formula' }));
    await activate();
    await fakes.activate.answer({ type: 'xstate.error.actor.activate', error: problem(422, 'formula-incomplete', { missing: ['mapping', 'routing', 'schedule'] }) });
    const missing = await screen.findByRole('list', { name: 'Missing' });
    expect(within(missing).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Mapping', 'Routing', 'Scheduling']);
    await user.click(within(missing).getByRole('button', { name: 'Scheduling' }));
    expect(props.onGoTo).toHaveBeenLastCalledWith('scheduling');
    expect(props.onSaved).not.toHaveBeenCalled();

    await activate();
    const active = formulaOf({ isDraft: false, status: 'active' });
    await fakes.activate.answer({ type: 'xstate.done.actor.activate', output: active });
    await waitFor(() => expect(props.onSaved).toHaveBeenCalledWith(active));
    expect(fakes.activate.calls).toEqual([FORMULA_ID, FORMULA_ID]);
  });

  it('an activation that fails otherwise says so, lists nothing missing, and activates on a second try', async () => {
    const { services, fakes } = fakeServices();
    const { props, user } = renderStep(ProcessingStep, 'processing', formulaOf(), services);
    const activate = () => user.click(screen.getByRole('button', { name: 'Activate the formula' }));
    await activate();
    await fakes.activate.answer({ type: 'xstate.error.actor.activate', error: problem(502, 'connection-error', { detail: 'The service did not answer.' }) });
    expect(await screen.findByText('An error occured while saving Processing')).toBeTruthy();
    expect(screen.getByText('The service did not answer.')).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Missing' })).toBeNull();
    expect(props.onSaved).not.toHaveBeenCalled();

    await activate();
    const active = formulaOf({ isDraft: false, status: 'active' });
    await fakes.activate.answer({ type: 'xstate.done.actor.activate', output: active });
    await waitFor(() => expect(props.onSaved).toHaveBeenCalledWith(active));
    expect(fakes.activate.calls).toEqual([FORMULA_ID, FORMULA_ID]);
  });
});
