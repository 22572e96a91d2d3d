/**
 * The Data Queue's tabs (SPEC.md sections 2, 5, 8 and 9; DESIGN.md section 3, tab editing): the
 * user's own tabs beside All Formulas, at most 5, each named by SPEC.md's rule; formula cards
 * placed on a tab, taken off it, and reordered.
 *
 * - loading the tabs (with every card's record counts), or failed with a retry;
 * - browsing: a tab or All Formulas shown; after a reorder, saved, or failed, where the previous
 *   order is back and SPEC.md's message shows as a notification for its usual 5 seconds;
 * - naming: a new tab's name or a new name for one, checked by the domain's rule before it is sent;
 *   creating or renaming it; a refusal goes back to naming with the server's reason;
 * - confirming the deletion of a tab, then deleting it;
 * - saving an order: shown at once (optimistic), saved, or failed and restored;
 * - changing cards: a card placed on a tab or taken off it.
 */
import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import type { Tab } from '../domain/api/dataQueue.ts';
import { DATA_QUEUE_MESSAGES, isSameSet, mayAddTab, tabNameError } from '../domain/dataQueue.ts';
import { messageForProblem, NOTIFICATION_TIMEOUT_MS } from '../domain/errors.ts';
import { dataQueue, type DataQueue } from '../services/dataQueue.ts';

/** All Formulas, the tab every user has */
export const ALL_FORMULAS = 'all';

export interface DataQueueTabsContext {
  tabs: Tab[];
  /** records per card count, by formula */
  counts: DataQueue['counts'];
  /** the tab shown: a tab's id, or ALL_FORMULAS */
  selected: string;
  /** the tab being renamed; null while naming a new one */
  editing: string | null;
  name: string;
  nameError: string | null;
  /** the tab whose deletion waits for the user's word */
  deleting: string | null;
  /** the order to restore if saving the new one fails */
  previousOrder: { tabId: string; formulaIds: string[] } | null;
  /** a failure to tell (other than a refused name) */
  error: string | null;
}

export type DataQueueTabsEvent =
  | { type: 'tabs.reload' }
  | { type: 'tab.select'; tabId: string }
  | { type: 'tab.add' }
  | { type: 'tab.rename'; tabId: string }
  | { type: 'name.change'; name: string }
  | { type: 'name.submit' }
  | { type: 'name.cancel' }
  | { type: 'tab.delete'; tabId: string }
  | { type: 'delete.confirm' }
  | { type: 'delete.cancel' }
  | { type: 'cards.reorder'; tabId: string; formulaIds: string[] }
  | { type: 'card.place'; tabId: string; formulaId: string }
  | { type: 'card.remove'; tabId: string; formulaId: string }
  | { type: 'notice.close' }
  | { type: 'error.close' };

export type CardChange = { kind: 'place' | 'remove'; tabId: string; formulaId: string };

/** what the server said, in the catalogue's words (a refused name: its rule's message) */
const reasonOf = (error: unknown): string => {
  const problem = (error as { problem?: { title?: string; detail?: string } }).problem;
  if (problem?.title === 'bad-request' && problem.detail) return problem.detail;
  return messageForProblem(problem);
};
const withTab = (tabs: Tab[], tab: Tab) => tabs.map((t) => (t.id === tab.id ? tab : t));

export const dataQueueTabsMachine = setup({
  types: { context: {} as DataQueueTabsContext, events: {} as DataQueueTabsEvent },
  actors: {
    loadTabs: fromPromise<DataQueue>(() => dataQueue.list()),
    createTab: fromPromise<Tab, { name: string }>(({ input }) => dataQueue.createTab(input.name)),
    renameTab: fromPromise<Tab, { tabId: string; name: string }>(({ input }) => dataQueue.renameTab(input.tabId, input.name)),
    deleteTab: fromPromise<void, { tabId: string }>(({ input }) => dataQueue.deleteTab(input.tabId)),
    saveOrder: fromPromise<Tab, { tabId: string; formulaIds: string[] }>(({ input }) => dataQueue.reorderCards(input.tabId, input.formulaIds)),
    changeCards: fromPromise<Tab, CardChange>(({ input }) => (input.kind === 'place'
      ? dataQueue.placeCard(input.tabId, input.formulaId)
      : dataQueue.removeCard(input.tabId, input.formulaId))),
  },
  delays: {
    /** how long a notification stays (SPEC.md section 9) */
    noticeTimeout: NOTIFICATION_TIMEOUT_MS,
  },
  guards: {
    canAddTab: ({ context }) => mayAddTab(context.tabs.length),
    isNameValid: ({ context }) => tabNameError(context.name) === null,
    isNamingNew: ({ context }) => context.editing === null,
    isOwnTab: ({ context, event }) => 'tabId' in event && context.tabs.some((t) => t.id === event.tabId),
    isShownTab: ({ context, event }) => 'tabId' in event && (event.tabId === ALL_FORMULAS || context.tabs.some((t) => t.id === event.tabId)),
    /** the same cards in another order: nothing else may be sent */
    isNewOrder: ({ context, event }) => {
      if (event.type !== 'cards.reorder') return false;
      const tab = context.tabs.find((t) => t.id === event.tabId);
      return !!tab && isSameSet(tab.formulaIds, event.formulaIds) && tab.formulaIds.some((id, i) => id !== event.formulaIds[i]);
    },
  },
  actions: {
    clearError: assign({ error: null }),
  },
}).createMachine({
  id: 'dataQueueTabs',
  initial: 'loading',
  context: {
    tabs: [], counts: {}, selected: ALL_FORMULAS, editing: null, name: '', nameError: null, deleting: null, previousOrder: null, error: null,
  },
  states: {
    loading: {
      invoke: {
        id: 'loadTabs',
        src: 'loadTabs',
        onDone: {
          target: 'ready',
          actions: assign(({ context, event }) => ({
            tabs: event.output.tabs,
            counts: event.output.counts,
            // a tab deleted elsewhere shows All Formulas instead
            selected: event.output.tabs.some((t) => t.id === context.selected) ? context.selected : ALL_FORMULAS,
            error: null,
          })),
        },
        onError: 'failed',
      },
    },
    failed: { on: { 'tabs.reload': 'loading' } },
    ready: {
      initial: 'browsing',
      on: {
        'tab.select': { guard: 'isShownTab', actions: assign({ selected: ({ event }) => event.tabId }) },
        'error.close': { actions: 'clearError' },
      },
      states: {
        browsing: {
          initial: 'idle',
          on: {
            'tabs.reload': '#dataQueueTabs.loading',
            'tab.add': { guard: 'canAddTab', target: 'naming', actions: assign({ editing: null, name: '', nameError: null, error: null }) },
            'tab.rename': {
              guard: 'isOwnTab', target: 'naming',
              actions: assign(({ context, event }) => ({ editing: event.tabId, name: context.tabs.find((t) => t.id === event.tabId)!.name, nameError: null, error: null })),
            },
            'tab.delete': { guard: 'isOwnTab', target: 'confirmingDelete', actions: assign({ deleting: ({ event }) => event.tabId, error: null }) },
            'cards.reorder': {
              guard: 'isNewOrder', target: 'savingOrder',
              actions: assign(({ context, event }) => {
                const tab = context.tabs.find((t) => t.id === event.tabId)!;
                return {
                  previousOrder: { tabId: tab.id, formulaIds: tab.formulaIds },
                  tabs: withTab(context.tabs, { ...tab, formulaIds: event.formulaIds }),
                  error: null,
                };
              }),
            },
            'card.place': { guard: 'isOwnTab', target: 'changingCards', actions: assign({ error: null }) },
            'card.remove': { guard: 'isOwnTab', target: 'changingCards', actions: assign({ error: null }) },
          },
          states: {
            idle: {},
            saved: { after: { noticeTimeout: 'idle' } },
            orderFailed: {
              after: { noticeTimeout: 'idle' },
              on: { 'notice.close': 'idle' },
            },
          },
        },
        naming: {
          on: {
            'name.change': { actions: assign({ name: ({ event }) => event.name, nameError: null }) },
            'name.submit': [
              { guard: 'isNameValid', target: 'savingName' },
              { actions: assign({ nameError: ({ context }) => tabNameError(context.name) }) },
            ],
            'name.cancel': 'browsing',
          },
        },
        savingName: {
          initial: 'choosing',
          states: {
            choosing: {
              always: [{ guard: 'isNamingNew', target: 'creating' }, { target: 'renaming' }],
            },
            creating: {
              invoke: {
                id: 'createTab',
                src: 'createTab',
                input: ({ context }) => ({ name: context.name }),
                onDone: {
                  target: '#dataQueueTabs.ready.browsing',
                  actions: assign(({ context, event }) => ({ tabs: [...context.tabs, event.output], selected: event.output.id })),
                },
                onError: { target: '#dataQueueTabs.ready.naming', actions: assign({ nameError: ({ event }) => reasonOf(event.error) }) },
              },
            },
            renaming: {
              invoke: {
                id: 'renameTab',
                src: 'renameTab',
                input: ({ context }) => ({ tabId: context.editing!, name: context.name }),
                onDone: { target: '#dataQueueTabs.ready.browsing', actions: assign(({ context, event }) => ({ tabs: withTab(context.tabs, event.output) })) },
                onError: { target: '#dataQueueTabs.ready.naming', actions: assign({ nameError: ({ event }) => reasonOf(event.error) }) },
              },
            },
          },
        },
        confirmingDelete: {
          on: {
            'delete.confirm': 'deleting',
            'delete.cancel': { target: 'browsing', actions: assign({ deleting: null }) },
          },
        },
        deleting: {
          invoke: {
            id: 'deleteTab',
            src: 'deleteTab',
            input: ({ context }) => ({ tabId: context.deleting! }),
            onDone: {
              target: 'browsing',
              actions: assign(({ context }) => ({
                tabs: context.tabs.filter((t) => t.id !== context.deleting),
                selected: context.selected === context.deleting ? ALL_FORMULAS : context.selected,
                deleting: null,
              })),
            },
            onError: { target: 'browsing', actions: assign({ deleting: null, error: ({ event }) => `The tab could not be deleted. ${reasonOf(event.error)}` }) },
          },
        },
        savingOrder: {
          invoke: {
            id: 'saveOrder',
            src: 'saveOrder',
            input: ({ context }) => {
              const tab = context.tabs.find((t) => t.id === context.previousOrder!.tabId)!;
              return { tabId: tab.id, formulaIds: tab.formulaIds };
            },
            onDone: { target: 'browsing.saved', actions: assign({ previousOrder: null }) },
            onError: {
              target: 'browsing.orderFailed',
              actions: assign(({ context }) => {
                const previous = context.previousOrder!;
                const tab = context.tabs.find((t) => t.id === previous.tabId)!;
                return { tabs: withTab(context.tabs, { ...tab, formulaIds: previous.formulaIds }), previousOrder: null };
              }),
            },
          },
        },
        changingCards: {
          invoke: {
            id: 'changeCards',
            src: 'changeCards',
            input: ({ event }) => {
              const e = event as Extract<DataQueueTabsEvent, { type: 'card.place' | 'card.remove' }>;
              return { kind: e.type === 'card.place' ? 'place' : 'remove', tabId: e.tabId, formulaId: e.formulaId } satisfies CardChange;
            },
            onDone: { target: 'browsing', actions: assign(({ context, event }) => ({ tabs: withTab(context.tabs, event.output) })) },
            onError: { target: 'browsing', actions: assign({ error: ({ event }) => `The tab's cards could not be changed. ${reasonOf(event.error)}` }) },
          },
        },
      },
    },
  },
});

export type DataQueueTabsState = SnapshotFrom<typeof dataQueueTabsMachine>;

/** The failed reorder's notification (SPEC.md section 8), while it shows. */
export const orderNotice = (state: DataQueueTabsState): string | null =>
  (state.matches({ ready: { browsing: 'orderFailed' } }) ? DATA_QUEUE_MESSAGES.orderFailed : null);
