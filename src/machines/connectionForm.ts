/**
 * The add/edit form of a data source: the system's catalogue schema decides the fields and checks
 * them (SPEC.md section 5); saved secrets are never loaded, only marked as saved, and a secret
 * left empty keeps its saved value. A system that signs in with OAuth offers Connect: the form is
 * saved, the server answers the vendor's consent page and the browser goes there; the vendor's
 * answer comes back to the Connections screen, which opens this form again with the outcome.
 * Test connection tests the settings as they stand, after the same check as Save: a form Save
 * would refuse is never sent to be tested. Saving settings whose last test failed asks first;
 * settings changed since, or never tested, save at once.
 */
import * as v from 'valibot';
import { and, assign, fromPromise, setup } from 'xstate';
import { connectorFor, isSavedMarker, type DataSourceView } from '../domain/connectors/catalogue.ts';
import {
  defaultValues, displayNameSchema, fieldApplies, formFields, validateSettings, type FieldErrors,
} from '../domain/connectors/fields.ts';
import { usesOAuth } from '../domain/connectors/oauth.ts';
import type { SystemId } from '../domain/connectors/types.ts';
import { integrations, type TestResult } from '../services/integrations.ts';
import { failureOf, testConnection, type ConnectionTestFailure, type TestTarget } from './connectionTest.ts';

/** How a connection with the vendor ended, as the form shows it when it opens again. */
export interface ConnectOutcome { connected: boolean; message: string }

export type ConnectionFormInput = ({ mode: 'create' } | { mode: 'edit'; dataSourceId: string; outcome?: ConnectOutcome }) & {
  /** whether the user may paste a refresh token (an Administrator); others only Connect */
  mayPasteTokens?: boolean;
};

export interface ConnectionFormContext {
  mode: 'create' | 'edit';
  dataSourceId: string | null;
  system: SystemId | null;
  displayName: string;
  values: Record<string, string>;
  /** secret fields with a saved value (shown behind a shield; empty keeps them) */
  savedSecrets: string[];
  errors: FieldErrors;
  /** fields the user has left, and whether a save was tried: errors show for those */
  touched: string[];
  submitted: boolean;
  saveError: string | null;
  saved: DataSourceView | null;
  mayPasteTokens: boolean;
  /** the vendor revoked the saved grant (why, in words): Connect again */
  needsReconnecting: string | null;
  /** the last connection with the vendor: connected, or why not */
  outcome: ConnectOutcome | null;
  /** the vendor's consent page, once the server has answered it */
  authorizeUrl: string | null;
  /** the last connection test of these settings: what it found, or why it failed */
  testResult: TestResult | null;
  testFailure: ConnectionTestFailure | null;
  /** the last test of the settings as they stand failed (dismissing the failure does not change that) */
  lastTestFailed: boolean;
}

export type ConnectionFormEvent =
  | { type: 'system.select'; system: SystemId }
  | { type: 'name.change'; value: string }
  | { type: 'field.change'; key: string; value: string }
  | { type: 'field.blur'; key: string }
  | { type: 'form.submit' }
  | { type: 'oauth.connect' }
  | { type: 'test.start' }
  | { type: 'test.reset' }
  | { type: 'save.anyway' }
  | { type: 'save.keepEditing' }
  | { type: 'form.cancel' };

/** The name and settings as the catalogue schema sees them. */
export function formErrors(c: Pick<ConnectionFormContext, 'system' | 'displayName' | 'values' | 'savedSecrets'>): FieldErrors {
  const errors: FieldErrors = {};
  const name = v.safeParse(displayNameSchema, c.displayName);
  if (!name.success) errors.displayName = name.issues[0]!.message;
  if (!c.system) { errors.system = 'Choose a system.'; return errors; }
  const result = validateSettings(connectorFor(c.system).settings, c.values, c.savedSecrets);
  return result.success ? errors : { ...errors, ...result.errors };
}

/** What is sent: the fields that apply; an empty secret means "keep the saved one" on an edit. */
export function settingsToSend(system: SystemId, values: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of formFields(connectorFor(system).settings)) {
    if (!fieldApplies(f, values)) continue;
    out[f.key] = (values[f.key] ?? '').trim() === '' ? '' : values[f.key]!;
  }
  return out;
}

export interface LoadedDataSource { system: SystemId; displayName: string; values: Record<string, string>; savedSecrets: string[]; needsReconnecting?: string | null }

/** What a save or a start of Connect refused, as the form shows it. */
function refusal(error: unknown, fallback: string): Pick<ConnectionFormContext, 'submitted' | 'errors' | 'saveError'> {
  const problem = (error as { problem?: { detail?: string; errors?: FieldErrors; title?: string } })?.problem ?? {};
  return {
    submitted: true,
    errors: problem.errors ?? (problem.title === 'datasource-name-taken' ? { displayName: problem.detail ?? 'A data source with this name already exists.' } : {}),
    saveError: problem.detail ?? fallback,
  };
}

/** What Test connection tests: the settings in the form, with the saved source's secrets for empty secret fields. */
export function testTargetOf(c: Pick<ConnectionFormContext, 'system' | 'values' | 'dataSourceId'>): TestTarget {
  return { kind: 'settings', system: c.system!, settings: settingsToSend(c.system!, c.values), ...(c.dataSourceId ? { dataSourceId: c.dataSourceId } : {}) };
}

function fromView(view: DataSourceView): LoadedDataSource {
  const values: Record<string, string> = {};
  const savedSecrets: string[] = [];
  for (const f of formFields(connectorFor(view.system).settings)) {
    const saved = view.settings[f.key];
    if (isSavedMarker(saved)) { savedSecrets.push(f.key); values[f.key] = ''; } else values[f.key] = saved ?? f.defaultValue ?? '';
  }
  return { system: view.system, displayName: view.displayName, values, savedSecrets, needsReconnecting: view.needsReconnecting?.reason ?? null };
}

export const connectionFormMachine = setup({
  types: {
    context: {} as ConnectionFormContext,
    events: {} as ConnectionFormEvent,
    input: {} as ConnectionFormInput,
    output: {} as { saved: DataSourceView | null },
  },
  actors: {
    loadDataSource: fromPromise<LoadedDataSource, { dataSourceId: string }>(async ({ input }) => fromView(await integrations.get(input.dataSourceId, { silent: true }))),
    saveDataSource: fromPromise<DataSourceView, ConnectionFormContext>(({ input }) => {
      const settings = settingsToSend(input.system!, input.values);
      return input.mode === 'create'
        ? integrations.create({ system: input.system!, displayName: input.displayName.trim(), settings: Object.fromEntries(Object.entries(settings).filter(([, x]) => x !== '')) }, { silent: true })
        : integrations.update(input.dataSourceId!, { displayName: input.displayName.trim(), settings }, { silent: true });
    }),
    testConnection,
    startOAuth: fromPromise<string, { dataSourceId: string }>(({ input }) => integrations.startOAuth(input.dataSourceId, { silent: true })),
    /** leaves the page for the vendor's consent page; the answer comes back to the Connections screen */
    goToVendor: fromPromise<void, { url: string }>(({ input }) => {
      window.location.assign(input.url);
      return new Promise<void>(() => {});
    }),
  },
  guards: {
    isCreating: ({ context }) => context.mode === 'create',
    isEditing: ({ context }) => context.mode === 'edit',
    isValid: ({ context }) => Object.keys(formErrors(context)).length === 0,
    lastTestFailed: ({ context }) => context.lastTestFailed,
    mayConnect: ({ context }) => usesOAuth(context.system, context.values) && Object.keys(formErrors(context)).length === 0,
  },
  actions: {
    check: assign({ errors: ({ context }) => formErrors(context) }),
    forgetTest: assign({ testResult: null, testFailure: null }),
    /** the settings changed or are tested again: a failure of the earlier ones no longer holds them back */
    settingsChanged: assign({ testResult: null, testFailure: null, lastTestFailed: false }),
  },
}).createMachine({
  id: 'connectionForm',
  context: ({ input }) => ({
    mode: input.mode,
    dataSourceId: input.mode === 'edit' ? input.dataSourceId : null,
    system: null, displayName: '', values: {}, savedSecrets: [], errors: {}, touched: [], submitted: false, saveError: null, saved: null,
    mayPasteTokens: input.mayPasteTokens ?? false,
    needsReconnecting: null,
    outcome: input.mode === 'edit' ? input.outcome ?? null : null,
    authorizeUrl: null,
    testResult: null,
    testFailure: null,
    lastTestFailed: false,
  }),
  initial: 'starting',
  output: ({ context }) => ({ saved: context.saved }),
  on: { 'form.cancel': '.cancelled' },
  states: {
    starting: {
      always: [{ guard: 'isEditing', target: 'loading' }, { target: 'editing', actions: 'check' }],
    },
    loading: {
      invoke: {
        id: 'loadDataSource',
        src: 'loadDataSource',
        input: ({ context }) => ({ dataSourceId: context.dataSourceId! }),
        onDone: { target: 'editing', actions: [assign(({ event }) => event.output), 'check'] },
        onError: {
          target: 'loadFailed',
          actions: assign({ saveError: ({ event }) => (event.error as { problem?: { detail?: string } })?.problem?.detail ?? 'The data source could not be read.' }),
        },
      },
    },
    loadFailed: {},
    editing: {
      // the test's outcome stays in the context: it shows beside the form until the settings change
      initial: 'idle',
      states: {
        idle: { on: { 'test.reset': { actions: 'forgetTest' } } },
        testing: {
          invoke: {
            id: 'testConnection',
            src: 'testConnection',
            input: ({ context }) => testTargetOf(context),
            onDone: { target: 'idle', actions: assign({ testResult: ({ event }) => event.output }) },
            onError: { target: 'idle', actions: assign({ testFailure: ({ event }) => failureOf(event.error), lastTestFailed: true }) },
          },
          // a second click while testing changes nothing
          on: { 'test.start': {} },
        },
      },
      on: {
        // the same check as Save: the fields' errors show inline and nothing is sent while any remains
        'test.start': [
          { guard: 'isValid', target: '.testing', actions: 'settingsChanged' },
          { actions: [assign({ submitted: true }), 'check'] },
        ],
        // an outcome is of the settings it tested: editing them leaves it behind
        'system.select': {
          guard: 'isCreating',
          target: '.idle',
          actions: ['settingsChanged', assign(({ event }) => ({
            system: event.system,
            values: defaultValues(connectorFor(event.system).settings),
            touched: [],
            submitted: false,
            saveError: null,
          })), 'check'],
        },
        'name.change': { actions: [assign({ displayName: ({ event }) => event.value, saveError: null }), 'check'] },
        'field.change': { target: '.idle', actions: ['settingsChanged', assign({ values: ({ context, event }) => ({ ...context.values, [event.key]: event.value }), saveError: null }), 'check'] },
        'field.blur': { actions: assign({ touched: ({ context, event }) => (context.touched.includes(event.key) ? context.touched : [...context.touched, event.key]) }) },
        'form.submit': [
          { guard: and(['isValid', 'lastTestFailed']), target: 'confirmingSave' },
          { guard: 'isValid', target: 'saving' },
          { actions: [assign({ submitted: true }), 'check'] },
        ],
        'oauth.connect': [
          { guard: 'mayConnect', target: 'savingToConnect', actions: assign({ outcome: null }) },
          { actions: [assign({ submitted: true, outcome: null }), 'check'] },
        ],
      },
    },
    // Connect saves first: the attempt is bound to a saved data source
    savingToConnect: {
      invoke: {
        id: 'saveDataSource',
        src: 'saveDataSource',
        input: ({ context }) => context,
        onDone: {
          target: 'authorizing',
          // from here on the form edits the saved source: trying again never adds a second one
          actions: assign(({ event }) => {
            const loaded = fromView(event.output);
            return { mode: 'edit' as const, dataSourceId: event.output.id, values: loaded.values, savedSecrets: loaded.savedSecrets };
          }),
        },
        onError: { target: 'editing', actions: assign(({ event }) => refusal(event.error, 'The data source could not be saved.')) },
      },
      on: { 'form.cancel': {} },
    },
    authorizing: {
      invoke: {
        id: 'startOAuth',
        src: 'startOAuth',
        input: ({ context }) => ({ dataSourceId: context.dataSourceId! }),
        onDone: { target: 'redirecting', actions: assign({ authorizeUrl: ({ event }) => event.output }) },
        onError: { target: 'editing', actions: assign(({ event }) => refusal(event.error, 'Tributary could not start connecting. Try again.')) },
      },
      on: { 'form.cancel': {} },
    },
    redirecting: {
      invoke: { id: 'goToVendor', src: 'goToVendor', input: ({ context }) => ({ url: context.authorizeUrl! }) },
      on: { 'form.cancel': {} },
    },
    // the settings as they stand failed their last test: save them anyway, or go back to them
    confirmingSave: {
      on: {
        'save.anyway': 'saving',
        'save.keepEditing': 'editing',
      },
    },
    saving: {
      invoke: {
        id: 'saveDataSource',
        src: 'saveDataSource',
        input: ({ context }) => context,
        onDone: { target: 'saved', actions: assign({ saved: ({ event }) => event.output }) },
        onError: { target: 'editing', actions: assign(({ event }) => refusal(event.error, 'The data source could not be saved.')) },
      },
      on: { 'form.cancel': {} },
    },
    saved: { type: 'final' },
    cancelled: { type: 'final' },
  },
});
