/**
 * Object picker (SPEC.md section 4): refreshing, complete. The list is read when the picker
 * opens (the server keeps the last list it read), and read from the system again on refresh.
 * A list that could not be read is 'failed', from where a refresh tries again; the list read
 * before stays, and a picker that never read one offers the standard objects it was given
 * (the wizard's pickers offer the connector's, so a formula can still be set up).
 * Objects known here but perhaps not in the kept list yet (a file just uploaded) are added to it.
 */
import { assign, fromPromise, setup, type ActorRefFrom } from 'xstate';
import type { ObjectInfo } from '../domain/connectors/types.ts';
import { integrations, type ObjectList } from '../services/integrations.ts';

export interface ObjectPickerInput {
  dataSourceId: string;
  selected?: string | null;
  /** offered when no list could ever be read; none by default */
  standard?: ObjectInfo[];
  /** what a refused read (403) says; the server's own detail by default */
  forbiddenMessage?: string;
  /** what a read that failed without a detail says */
  failedMessage?: string;
  /** the list is known to be refused (none kept, and the user may not read one): not asked for */
  refused?: boolean;
}

export interface ObjectPickerContext {
  /** the list is not asked for: it would be refused */
  refused: boolean;
  dataSourceId: string;
  objects: ObjectInfo[];
  /** objects added here (uploaded files), listed first */
  added: ObjectInfo[];
  refreshedOn: string | null;
  selected: string | null;
  /** the first read uses the kept list; a refresh asks the system */
  fromSystem: boolean;
  /** a list was read once: a failed read keeps it rather than offering the standard objects */
  hasRead: boolean;
  standard: ObjectInfo[];
  forbiddenMessage: string | null;
  failedMessage: string;
  error: string | null;
}

export type ObjectPickerEvent =
  | { type: 'objects.refresh' }
  | { type: 'object.select'; name: string }
  | { type: 'objects.add'; object: ObjectInfo };

interface LoadInput { dataSourceId: string; fromSystem: boolean }

/** The calls the picker reads its list with; tests hand in fakes of the same shape. */
export type ObjectCalls = Pick<typeof integrations, 'objects' | 'refreshObjects'>;

/** the picker's list read over these calls */
export const loadObjectsOver = (calls: ObjectCalls) => fromPromise<ObjectList, LoadInput>(({ input }) => (input.fromSystem
  ? calls.refreshObjects(input.dataSourceId, { silent: true })
  : calls.objects(input.dataSourceId, { silent: true })));

/** the objects offered: those added here first, then the list, each once */
export const listedObjects = (context: Pick<ObjectPickerContext, 'added' | 'objects'>) => [...context.added, ...context.objects]
  .filter((o, i, all) => all.findIndex((x) => x.name === o.name) === i);

const problemOf = (error: unknown) => (error as { status?: number; problem?: { detail?: string } } | null) ?? {};

export const objectPickerMachine = setup({
  types: {
    context: {} as ObjectPickerContext,
    events: {} as ObjectPickerEvent,
    input: {} as ObjectPickerInput,
  },
  actors: {
    loadObjects: loadObjectsOver(integrations),
  },
  guards: {
    isListedObject: ({ context, event }) => event.type === 'object.select' && listedObjects(context).some((o) => o.name === event.name),
    hasReadList: ({ context }) => context.hasRead,
    isRefused: ({ context }) => context.refused,
  },
  actions: {
    keepError: assign({
      error: ({ context, event }) => {
        const p = problemOf((event as { error?: unknown }).error);
        if (p.status === 403 && context.forbiddenMessage) return context.forbiddenMessage;
        return p.problem?.detail ?? context.failedMessage;
      },
    }),
  },
}).createMachine({
  id: 'objectPicker',
  initial: 'starting',
  context: ({ input }) => ({
    refused: input.refused ?? false,
    dataSourceId: input.dataSourceId, objects: [], added: [], refreshedOn: null, selected: input.selected ?? null, fromSystem: false,
    hasRead: false, standard: input.standard ?? [], forbiddenMessage: input.forbiddenMessage ?? null,
    failedMessage: input.failedMessage ?? 'The objects could not be read.', error: null,
  }),
  on: {
    'objects.add': { actions: assign({ added: ({ context, event }) => [event.object, ...context.added.filter((o) => o.name !== event.object.name)] }) },
  },
  states: {
    starting: {
      always: [
        // what a refusal would leave: the standard objects and the refusal's words
        { guard: 'isRefused', target: 'failed', actions: assign({ objects: ({ context }) => context.standard, error: ({ context }) => context.forbiddenMessage ?? context.failedMessage }) },
        { target: 'refreshing' },
      ],
    },
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
            selected: ({ context, event }) => (listedObjects({ added: context.added, objects: event.output.objects }).some((o) => o.name === context.selected) ? context.selected : null),
            hasRead: true,
            error: null,
          }),
        },
        onError: [
          { guard: 'hasReadList', target: 'failed', actions: 'keepError' },
          { target: 'failed', actions: ['keepError', assign({ objects: ({ context }) => context.standard })] },
        ],
      },
    },
    complete: {
      on: {
        'objects.refresh': { target: 'refreshing', actions: assign({ fromSystem: true }) },
        'object.select': { guard: 'isListedObject', actions: assign({ selected: ({ event }) => event.name }) },
      },
    },
    /** the list read before, or the standard objects, stay in the context for a screen that offers them */
    failed: {
      on: { 'objects.refresh': { target: 'refreshing', actions: assign({ fromSystem: true }) } },
    },
  },
});

export type ObjectPickerRef = ActorRefFrom<typeof objectPickerMachine>;
