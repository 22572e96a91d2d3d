/**
 * The Data Queue of the web API (/web-api/v1/data-queue): each endpoint is described in
 * src/domain/api/dataQueue.ts; the rules are in server/services/dataQueue.ts. Tabs are the
 * caller's own, so every call names the caller.
 */
import { dataQueueService } from '../../src/domain/api/dataQueue.ts';
import { createTab, dataQueueOf, deleteTab, placeCard, removeCard, renameTab, reorderCards } from '../services/dataQueue.ts';
import { isUuid, type Auth } from './auth.ts';
import { fail } from './problem.ts';
import { contractRouter } from './routes.ts';

export function dataQueueRouter(auth: Auth) {
  const { app, on } = contractRouter(auth);
  const api = dataQueueService.endpoints;
  // a malformed id is as unknown as another user's tab or another tenant's formula
  const tab = (id: string) => (isUuid(id) ? id : fail('not-found', 'No such tab.'));
  const formula = (id: string) => (isUuid(id) ? id : fail('not-found', 'No such formula.'));

  on(api.onboarding, async (c) => c.var.tenant.dataQueue.onboarding());
  on(api.list, async (c) => dataQueueOf(c.var.tenant, c.var.caller.userId));
  on(api.createTab, async (c, { body }) => createTab(c.var.tenant, c.var.caller.userId, body.name));
  on(api.renameTab, async (c, { params, body }) => renameTab(c.var.tenant, c.var.caller.userId, tab(params.tabId), body.name));
  on(api.deleteTab, async (c, { params }) => deleteTab(c.var.tenant, c.var.caller.userId, tab(params.tabId)));
  on(api.placeCard, async (c, { params }) => placeCard(c.var.tenant, c.var.caller.userId, tab(params.tabId), formula(params.formulaId)));
  on(api.removeCard, async (c, { params }) => removeCard(c.var.tenant, c.var.caller.userId, tab(params.tabId), formula(params.formulaId)));
  on(api.reorderCards, async (c, { params, body }) => reorderCards(c.var.tenant, c.var.caller.userId, tab(params.tabId), body.formulaIds));

  return app;
}
