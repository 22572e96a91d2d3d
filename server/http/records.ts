/**
 * The records of the bucket screens (/web-api/v1/records): each endpoint is described in
 * src/domain/api/records.ts; the rules are in server/services/records.ts.
 */
import { recordsService as recordsContract } from '../../src/domain/api/records.ts';
import type { RecordActor, RecordReviewService } from '../services/records.ts';
import { isUuid, type Auth } from './auth.ts';
import type { AppEnv } from './env.ts';
import { fail } from './problem.ts';
import { contractRouter } from './routes.ts';

export function recordsRouter(services: { records: RecordReviewService }, auth: Auth) {
  const review = services.records;
  const { app, on } = contractRouter(auth);
  const api = recordsContract.endpoints;
  const actor = (c: { var: Pick<AppEnv['Variables'], 'caller' | 'correlationId' | 'log'> }): RecordActor => ({
    actor: { userId: c.var.caller.userId, name: c.var.caller.fullName }, policies: c.var.caller.policies,
    correlationId: c.var.correlationId, log: c.var.log,
  });
  // a malformed id is as unknown as another tenant's
  const formulaOf = (id: string) => (isUuid(id) ? id : fail('not-found', 'No such formula.'));
  const recordOf = (id: string) => (isUuid(id) ? id : fail('not-found', 'No such record.'));

  on(api.counts, async (c, { params }) => review.counts(c.var.tenant, formulaOf(params.formulaId)));
  on(api.list, async (c, { params, body }) => review.list(c.var.tenant, formulaOf(params.formulaId), body));
  on(api.matchSearch, async (c, { params, query }) => review.matchSearch(c.var.tenant, formulaOf(params.formulaId), query.q, c.var.log));
  on(api.get, async (c, { params }) => review.get(c.var.tenant, formulaOf(params.formulaId), recordOf(params.recordId), c.var.log));
  on(api.edit, async (c, { params, body }) => review.edit(c.var.tenant, actor(c), formulaOf(params.formulaId), recordOf(params.recordId), body));
  on(api.pickMatch, async (c, { params, body }) =>
    review.pickMatch(c.var.tenant, actor(c), formulaOf(params.formulaId), recordOf(params.recordId), body.candidateId, body.query));
  on(api.ready, async (c, { params, body }) => review.ready(c.var.tenant, actor(c), formulaOf(params.formulaId), body.selection));
  on(api.createNew, async (c, { params, body }) => review.createNew(c.var.tenant, actor(c), formulaOf(params.formulaId), body.selection));
  on(api.send, async (c, { params, body }) => review.send(c.var.tenant, actor(c), formulaOf(params.formulaId), body.selection));
  on(api.remove, async (c, { params, body }) => review.remove(c.var.tenant, actor(c), formulaOf(params.formulaId), body.selection));

  return app;
}
