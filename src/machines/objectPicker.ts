/**
 * Object picker (SPEC.md section 4): refreshing, complete. The list is read when the picker
 * opens (the server keeps the last list it read), and read from the system again on refresh.
 * A list that could not be read is 'failed', from where a refresh tries again.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { ObjectInfo } from '../domain/connectors/types.ts';
import { integrations, type ObjectList } from '../services/integrations.ts';

export interface ObjectPickerContext {
  dataSourceId: string;
  objects: ObjectInfo[];
  refreshedOn: string | null;
  selected: string | null;
  /** the first read uses the kept list; a refresh asks the system */
  fromSystem: boolean;
  error: string | null;
}

export type ObjectPickerEvent =
  | { type: 'objects.refresh' }
  | { type: 'object.select'; name: string };

export const objectPickerMachine = setup({
  types: {
    context: {} as ObjectPickerContext,
    events: {} as ObjectPickerEvent,
    input: {} as { dataSourceId: string; selected?: string | null },
  },
  actors: {
    loadObjects: fromPromise<ObjectList, { dataSourceId: string; fromSystem: boolean }>(({ input }) => (input.fromSystem
      ? integrations.refreshObjects(input.dataSourceId, { silent: true })
      : integrations.objects(input.dataSourceId, { silent: true }))),
  },
  guards: {
    isListedObject: ({ context, event }) => event.type === 'object.select' && context.objects.some((o) => o.name === event.name),
  },
}).createMachine({
  id: 'objectPicker',
  initial: 'refreshing',
  context: ({ input }) => ({ dataSourceId: input.dataSourceId, objects: [], refreshedOn: null, selected: input.selected ?? null, fromSystem: false, error: null }),
  states: {
    refreshing: {
      invoke: {
        id: 'loadObjects',
        src: 'loadObjects',
        input: ({ context }) => ({ dataSourceId: context.dataSourceId, fromSystem: context.fromSystem }),
        onDone: {
          target: 'complete',
          actions: assign({
            objects: ({ event }) => event.output.objects,
            refreshedOn: ({ event }) => event.output.refreshedOn,
            // a selection that is gone from the system is dropped
            selected: ({ context, event }) => (event.output.objects.some((o) => o.name === context.selected) ? context.selected : null),
            error: null,
          }),
        },
        onError: {
          target: 'failed',
          actions: assign({ error: ({ event }) => (event.error as { problem?: { detail?: string } })?.problem?.detail ?? 'The objects could not be read.' }),
        },
      },
    },
    complete: {
      on: {
        'objects.refresh': { target: 'refreshing', actions: assign({ fromSystem: true }) },
        'object.select': { guard: 'isListedObject', actions: assign({ selected: ({ event }) => event.name }) },
      },
    },
    failed: {
      on: { 'objects.refresh': { target: 'refreshing', actions: assign({ fromSystem: true }) } },
    },
  },
});
