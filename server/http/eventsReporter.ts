/**
 * The events reporter (/events-reporter/v1): the activity history of SPEC.md section 3. Each
 * endpoint is described in src/domain/api/eventsReporter.ts, which also checks the query.
 */
import { eventsReporterService } from '../../src/domain/api/eventsReporter.ts';
import { eventById, eventsPage, eventTypes } from '../services/events.ts';
import { isUuid, type Auth } from './auth.ts';
import { fail } from './problem.ts';
import { contractRouter } from './routes.ts';

export function eventsReporterRouter(auth: Auth) {
  const { app, on } = contractRouter(auth);
  const api = eventsReporterService.endpoints;

  on(api.list, async (c, { query }) => eventsPage(c.var.tenant, query));
  on(api.types, async (c) => eventTypes(c.var.tenant));
  // a malformed id is as unknown as another tenant's event
  on(api.get, async (c, { params }) => eventById(c.var.tenant, isUuid(params.id) ? params.id : fail('not-found', 'No such event.')));

  return app;
}
