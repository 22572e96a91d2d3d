/**
 * The activity history's column picker (SPEC.md section 5: at least one visible column): the
 * columns shown, restored from the user's remembered choice and remembered on every change. The
 * last visible column cannot be hidden; trying says why.
 */
import { assign, fromPromise, setup } from 'xstate';
import { ACTIVITY_HISTORY_COLUMNS, type ActivityHistoryColumn } from '../domain/activityHistory.ts';
import { columnChoices } from '../services/columnChoices.ts';

export const LAST_COLUMN_MESSAGE = 'At least one column stays visible';

export interface ColumnPickerInput {
  /** where the choice is remembered: per user when the user is known */
  storageKey: string;
}

export interface ColumnPickerContext extends ColumnPickerInput {
  /** in the table's order */
  visible: ActivityHistoryColumn[];
  /** the column that was kept because it was the last one shown */
  refused: ActivityHistoryColumn | null;
}

export type ColumnPickerEvent = { type: 'column.toggle'; column: ActivityHistoryColumn } | { type: 'columns.reset' };

/** A remembered choice as columns in the table's order; all of them when nothing valid was remembered. */
export function restoredColumns(saved: readonly string[] | null): ActivityHistoryColumn[] {
  const visible = ACTIVITY_HISTORY_COLUMNS.filter((c) => saved?.includes(c));
  return visible.length ? visible : [...ACTIVITY_HISTORY_COLUMNS];
}

const toggled = (visible: readonly ActivityHistoryColumn[], column: ActivityHistoryColumn) =>
  ACTIVITY_HISTORY_COLUMNS.filter((c) => (c === column ? !visible.includes(c) : visible.includes(c)));

export const columnPickerMachine = setup({
  types: { context: {} as ColumnPickerContext, events: {} as ColumnPickerEvent, input: {} as ColumnPickerInput },
  actors: {
    readChoice: fromPromise<string[] | null, { storageKey: string }>(async ({ input }) => columnChoices.read(input.storageKey)),
  },
  actions: {
    saveChoice: ({ context }) => columnChoices.save(context.storageKey, context.visible),
  },
  guards: {
    isLastVisibleColumn: ({ context, event }) => event.type === 'column.toggle' && context.visible.length === 1 && context.visible[0] === event.column,
  },
}).createMachine({
  id: 'columnPicker',
  initial: 'restoring',
  context: ({ input }) => ({ storageKey: input.storageKey, visible: [...ACTIVITY_HISTORY_COLUMNS], refused: null }),
  states: {
    restoring: {
      invoke: {
        id: 'readChoice',
        src: 'readChoice',
        input: ({ context }) => ({ storageKey: context.storageKey }),
        onDone: { target: 'ready', actions: assign({ visible: ({ event }) => restoredColumns(event.output) }) },
        onError: 'ready',
      },
    },
    ready: {
      on: {
        'column.toggle': [
          { guard: 'isLastVisibleColumn', actions: assign({ refused: ({ event }) => event.column }) },
          { actions: [assign({ visible: ({ context, event }) => toggled(context.visible, event.column), refused: null }), 'saveChoice'] },
        ],
        'columns.reset': { actions: [assign({ visible: () => [...ACTIVITY_HISTORY_COLUMNS], refused: null }), 'saveChoice'] },
      },
    },
  },
});
