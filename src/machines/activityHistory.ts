/**
 * The activity history (SPEC.md sections 3 and 5): the tenant's events, or one formula's, in a
 * date range with filters, newest first, a page at a time with the events reporter's cursor.
 * Filters are checked before any request; a page that fails to load more keeps those shown.
 */
import { assign, fromPromise, setup } from 'xstate';
import { activityFilterProblems, activityRange, defaultActivityFilters, type ActivityFilterField, type ActivityHistoryFilters } from '../domain/activityHistory.ts';
import { formulaDisplayName } from '../domain/formula/formula.ts';
import { eventsReporter, type ActivityEvent, type EventsPage } from '../services/eventsReporter.ts';
import { formulas } from '../services/formulas.ts';

export interface ActivityHistoryInput {
  formulaId: string | null;
  /** today, for the default range of the last 7 days */
  now: Date;
}

export interface ActivityHistoryContext {
  formulaId: string | null;
  /** the filters of the events shown */
  filters: ActivityHistoryFilters;
  /** what is wrong with filters the user tried to apply */
  problems: Partial<Record<ActivityFilterField, string>>;
  events: ActivityEvent[];
  nextCursor: string | null;
  /** the types the tenant's history holds, for the type filter */
  types: string[];
  /** the formula's name, on one formula's history */
  formulaName: string | null;
  /** a further page that could not be loaded */
  moreError: string | null;
}

export type ActivityHistoryEvent =
  | { type: 'filters.apply'; filters: ActivityHistoryFilters }
  | { type: 'page.more' }
  | { type: 'list.reload' };

export interface PageRequest { formulaId: string | null; filters: ActivityHistoryFilters; cursor: string | null }

/** The events reporter's query of a page. */
export function pageQuery({ formulaId, filters, cursor }: PageRequest) {
  const range = activityRange(filters)!;
  return {
    from: range.from.toISOString(), to: range.to.toISOString(), formulaId: formulaId ?? undefined,
    types: filters.types, actor: filters.actor || undefined, q: filters.q.trim() || undefined, cursor: cursor ?? undefined,
  };
}

export const activityHistoryMachine = setup({
  types: { context: {} as ActivityHistoryContext, events: {} as ActivityHistoryEvent, input: {} as ActivityHistoryInput },
  actors: {
    /** the type filter's choices and the formula's name: neither stops the history from showing */
    loadOptions: fromPromise<{ types: string[]; formulaName: string | null }, { formulaId: string | null }>(async ({ input }) => {
      const [types, formula] = await Promise.all([
        eventsReporter.types({ silent: true }).catch(() => []),
        input.formulaId ? formulas.get(input.formulaId, { silent: true }).catch(() => null) : null,
      ]);
      return { types, formulaName: formula ? formulaDisplayName(formula) : null };
    }),
    loadPage: fromPromise<EventsPage, PageRequest>(async ({ input }) => eventsReporter.page(pageQuery(input), { silent: true })),
  },
  actions: {
    takeFilters: assign(({ event }) => (event.type === 'filters.apply' ? { filters: event.filters, problems: {} } : {})),
    showProblems: assign(({ event }) => (event.type === 'filters.apply' ? { problems: activityFilterProblems(event.filters) } : {})),
  },
  guards: {
    areFiltersValid: ({ event }) => event.type === 'filters.apply' && Object.keys(activityFilterProblems(event.filters)).length === 0,
    hasMorePages: ({ context }) => context.nextCursor !== null,
  },
}).createMachine({
  id: 'activityHistory',
  initial: 'preparing',
  context: ({ input }) => ({
    formulaId: input.formulaId, filters: defaultActivityFilters(input.now), problems: {}, events: [], nextCursor: null,
    types: [], formulaName: null, moreError: null,
  }),
  states: {
    preparing: {
      invoke: {
        id: 'loadOptions',
        src: 'loadOptions',
        input: ({ context }) => ({ formulaId: context.formulaId }),
        onDone: { target: 'loading', actions: assign(({ event }) => ({ types: event.output.types, formulaName: event.output.formulaName })) },
        onError: 'loading',
      },
    },
    loading: {
      entry: assign({ events: [], nextCursor: null, moreError: null }),
      invoke: {
        id: 'loadPage',
        src: 'loadPage',
        input: ({ context }) => ({ formulaId: context.formulaId, filters: context.filters, cursor: null }),
        onDone: { target: 'loaded', actions: assign(({ event }) => ({ events: event.output.events, nextCursor: event.output.nextCursor })) },
        onError: 'failed',
      },
    },
    loaded: {
      on: {
        'filters.apply': [{ guard: 'areFiltersValid', target: 'loading', actions: 'takeFilters' }, { actions: 'showProblems' }],
        'page.more': { guard: 'hasMorePages', target: 'loadingMore' },
      },
    },
    loadingMore: {
      entry: assign({ moreError: null }),
      invoke: {
        id: 'loadMore',
        src: 'loadPage',
        input: ({ context }) => ({ formulaId: context.formulaId, filters: context.filters, cursor: context.nextCursor }),
        onDone: {
          target: 'loaded',
          actions: assign(({ context, event }) => ({ events: [...context.events, ...event.output.events], nextCursor: event.output.nextCursor })),
        },
        onError: { target: 'loaded', actions: assign({ moreError: 'More activity could not be loaded.' }) },
      },
    },
    failed: {
      on: { 'filters.apply': [{ guard: 'areFiltersValid', target: 'loading', actions: 'takeFilters' }, { actions: 'showProblems' }], 'list.reload': 'loading' },
    },
  },
});
