/**
 * The Feature Flags screen's workflow (Administrators, the `flags` policy): list the tenant's
 * flags, switch one's `enabled` (for a boolean flag its default value), and change the formulas
 * of a flag's formula-id rule (custom-routing's "on for chosen formulas"), picked by name from the
 * tenant's formulas and saved as ids. After a change the browser's flag client refreshes at once,
 * so the screen and the wizard see it.
 */
import { assign, enqueueActions, fromPromise, setup, type AnyActorRef } from 'xstate';
import { withFormulaRuleIds } from '../domain/flags/customRouting.ts';
import { type StoredFlag } from '../domain/flags/definitions.ts';
import { formulaDisplayName } from '../domain/formula/formula.ts';
import { flagAdmin } from '../services/flags.ts';
import { formulas } from '../services/formulas.ts';

/** A formula of the tenant, as a rule's choice: its id (what the rule stores) and its name. */
export interface FormulaChoice { id: string; name: string }

export interface FlagAdminInput {
  /** the browser's flag client (flagsMachine), told to refresh after a change */
  flagClient?: AnyActorRef;
}

export interface FlagAdminContext {
  flagClient: AnyActorRef | null;
  flags: StoredFlag[];
  /** the flag a change is being saved for */
  busyKey: string | null;
  error: string | null;
  /** what the last successful change was, for the screen to confirm */
  notice: string | null;
  /** the tenant's formulas to choose from by name; null until they are loaded */
  formulas: FormulaChoice[] | null;
  /** why they could not be loaded (the rule's ids are then typed) */
  formulasError: string | null;
}

export type FlagAdminEvent =
  | { type: 'flags.reload' }
  | { type: 'flag.switch'; key: string; enabled: boolean }
  | { type: 'flag.formulas.save'; key: string; formulaIds: string[] }
  | { type: 'notice.dismiss' };

const messageOf = (error: unknown) => {
  const e = error as { problem?: { detail?: string }; message?: string };
  return e?.problem?.detail ?? e?.message ?? 'The flags could not be saved.';
};

const errorOf = ({ event }: { event: { error: unknown } }) => event.error;
const replaceFlag = (flags: StoredFlag[], flag: StoredFlag) => flags.map((f) => (f.key === flag.key ? flag : f));

export const flagAdminMachine = setup({
  types: {
    context: {} as FlagAdminContext,
    input: {} as FlagAdminInput | undefined,
    events: {} as FlagAdminEvent,
  },
  actors: {
    loadFlags: fromPromise<StoredFlag[]>(() => flagAdmin.list({ silent: true })),
    loadFormulas: fromPromise<FormulaChoice[]>(async () => (await formulas.list({ silent: true }))
      .map((f) => ({ id: f.id, name: formulaDisplayName(f) }))
      .sort((a, b) => a.name.localeCompare(b.name))),
    switchFlag: fromPromise<StoredFlag, { key: string; enabled: boolean }>(({ input }) => flagAdmin.setEnabled(input.key, input.enabled, { silent: true })),
    saveFlag: fromPromise<StoredFlag, { flag: StoredFlag; formulaIds: string[] }>(({ input }) => {
      const { key, namespace: _n, createdOn: _c, updatedOn: _u, ...definition } = input.flag;
      return flagAdmin.save(key, withFormulaRuleIds(definition, input.formulaIds), { silent: true });
    }),
  },
  guards: {
    isKnownFlag: ({ context, event }) => 'key' in event && context.flags.some((f) => f.key === event.key),
  },
  actions: {
    refreshFlagClient: enqueueActions(({ context, enqueue }) => {
      if (context.flagClient) enqueue.sendTo(context.flagClient, { type: 'flags.refresh' });
    }),
    recordError: assign({ error: (_, error: unknown) => messageOf(error), busyKey: null }),
    clearMessages: assign({ error: null, notice: null }),
  },
}).createMachine({
  id: 'flagAdmin',
  initial: 'loading',
  context: ({ input }) => ({ flagClient: input?.flagClient ?? null, flags: [], busyKey: null, error: null, notice: null, formulas: null, formulasError: null }),
  // the formulas load once, beside the flags, whatever the list does meanwhile
  invoke: {
    id: 'loadFormulas',
    src: 'loadFormulas',
    onDone: { actions: assign({ formulas: ({ event }) => event.output }) },
    onError: { actions: assign({ formulasError: ({ event }) => (event.error as { problem?: { detail?: string } })?.problem?.detail ?? 'The formulas could not be loaded.' }) },
  },
  states: {
    loading: {
      invoke: {
        id: 'loadFlags',
        src: 'loadFlags',
        onDone: { target: 'listed', actions: assign({ flags: ({ event }) => event.output, error: null }) },
        onError: { target: 'loadFailed', actions: { type: 'recordError', params: errorOf } },
      },
    },
    loadFailed: {
      on: { 'flags.reload': { target: 'loading', actions: 'clearMessages' } },
    },
    listed: {
      on: {
        'flags.reload': { target: 'loading', actions: 'clearMessages' },
        'notice.dismiss': { actions: assign({ notice: null }) },
        'flag.switch': {
          guard: 'isKnownFlag',
          target: 'switching',
          actions: assign({ busyKey: ({ event }) => event.key, error: null, notice: null }),
        },
        'flag.formulas.save': {
          guard: 'isKnownFlag',
          target: 'saving',
          actions: assign({ busyKey: ({ event }) => event.key, error: null, notice: null }),
        },
      },
    },
    switching: {
      invoke: {
        id: 'switchFlag',
        src: 'switchFlag',
        input: ({ event }) => {
          const e = event as Extract<FlagAdminEvent, { type: 'flag.switch' }>;
          return { key: e.key, enabled: e.enabled };
        },
        onDone: {
          target: 'listed',
          actions: [
            assign({
              flags: ({ context, event }) => replaceFlag(context.flags, event.output),
              notice: ({ event }) => `${event.output.name} is now ${event.output.enabled ? 'enabled' : 'disabled'}.`,
              busyKey: null,
            }),
            { type: 'refreshFlagClient' },
          ],
        },
        onError: { target: 'listed', actions: { type: 'recordError', params: errorOf } },
      },
    },
    saving: {
      invoke: {
        id: 'saveFlag',
        src: 'saveFlag',
        input: ({ context, event }) => {
          const e = event as Extract<FlagAdminEvent, { type: 'flag.formulas.save' }>;
          return { flag: context.flags.find((f) => f.key === e.key)!, formulaIds: e.formulaIds };
        },
        onDone: {
          target: 'listed',
          actions: [
            assign({
              flags: ({ context, event }) => replaceFlag(context.flags, event.output),
              notice: ({ event }) => `The formulas of ${event.output.name} were saved.`,
              busyKey: null,
            }),
            { type: 'refreshFlagClient' },
          ],
        },
        onError: { target: 'listed', actions: { type: 'recordError', params: errorOf } },
      },
    },
  },
});
