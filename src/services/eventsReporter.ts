/** The activity history of the events reporter (/events-reporter/v1), typed by its contract (src/domain/api/eventsReporter.ts). */
import { eventsReporterService, type ActivityEventOut } from '../domain/api/eventsReporter.ts';
import { serviceClient, type RequestOptions } from './gateway.ts';

export type ActivityEvent = ActivityEventOut;

/** One page's request: the range as ISO date-times, the filters, and the previous page's cursor. */
export interface EventsPageQuery {
  from: string;
  to: string;
  formulaId?: string;
  types?: string[];
  /** 'system' or a user id */
  actor?: string;
  q?: string;
  cursor?: string;
  limit?: number;
}

export interface EventsPage { events: ActivityEvent[]; nextCursor: string | null }

const client = serviceClient(eventsReporterService);

export const eventsReporter = {
  page: (query: EventsPageQuery, o?: RequestOptions): Promise<EventsPage> => client.call('list', {
    query: {
      from: query.from, to: query.to, formulaId: query.formulaId, type: query.types?.length ? query.types : undefined,
      actor: query.actor, q: query.q || undefined, cursor: query.cursor, limit: query.limit === undefined ? undefined : String(query.limit),
    },
  }, o),
  types: async (o?: RequestOptions): Promise<string[]> => (await client.call('types', {}, o)).types,
  get: (id: string, o?: RequestOptions): Promise<ActivityEvent> => client.call('get', { params: { id } }, o),
};
export type EventsReporter = typeof eventsReporter;
