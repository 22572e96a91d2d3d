/**
 * Formulas of the web API (/web-api/v1/formulas): each endpoint is described in
 * src/domain/api/formulas.ts (the part endpoints derived from the part list); the rules are in
 * server/services/formulas.ts.
 */
import { formulasService as formulasContract } from '../../src/domain/api/formulas.ts';
import { FORMULA_PART_NAMES } from '../../src/domain/formula/parts.ts';
import type { FormulaActor, FormulasService } from '../services/formulas.ts';
import type { FormulaRunsService, RunActor } from '../services/formulaRuns.ts';
import { isUuid, type Auth } from './auth.ts';
import type { AppEnv } from './env.ts';
import { fail } from './problem.ts';
import { contractRouter } from './routes.ts';

export function formulasRouter(services: { formulas: FormulasService; formulaRuns: FormulaRunsService }, auth: Auth) {
  const { formulas, formulaRuns: runs } = services;
  const { app, on } = contractRouter(auth);
  const api = formulasContract.endpoints;
  const actor = (c: { var: Pick<AppEnv['Variables'], 'caller' | 'correlationId' | 'log'> }): FormulaActor => ({
    userId: c.var.caller.userId, name: c.var.caller.fullName, correlationId: c.var.correlationId, log: c.var.log,
  });
  const runActor = (c: { var: Pick<AppEnv['Variables'], 'caller' | 'correlationId' | 'log'> }): RunActor => ({
    actor: { userId: c.var.caller.userId, name: c.var.caller.fullName }, correlationId: c.var.correlationId, log: c.var.log,
  });
  /** a malformed id is as unknown as another tenant's formula */
  const idOf = (id: string) => (isUuid(id) ? id : fail('not-found', 'No such formula.'));

  on(api.list, async (c) => ({ formulas: await formulas.list(c.var.tenant) }));
  // before /:id, which would take 'statuses' for an id
  on(api.statuses, async (c) => ({ statuses: await runs.statuses(c.var.tenant) }));
  on(api.create, async (c, { body }) => formulas.create(c.var.tenant, actor(c), body));
  on(api.fromUpload, async (c, { body }) => formulas.fromUpload(c.var.tenant, actor(c), body.uploadId));
  on(api.get, async (c, { params }) => formulas.get(c.var.tenant, idOf(params.id)));
  on(api.update, async (c, { params, body }) => formulas.update(c.var.tenant, actor(c), idOf(params.id), body));
  on(api.remove, async (c, { params }) => formulas.remove(c.var.tenant, actor(c), idOf(params.id)));
  on(api.deletion, async (c, { params }) => formulas.deletion(c.var.tenant, idOf(params.id)));
  on(api.archive, async (c, { params }) => formulas.archive(c.var.tenant, actor(c), idOf(params.id)));
  on(api.unarchive, async (c, { params }) => formulas.unarchive(c.var.tenant, actor(c), idOf(params.id)));
  on(api.copy, async (c, { params }) => formulas.copy(c.var.tenant, actor(c), idOf(params.id)));
  on(api.activate, async (c, { params }) => formulas.activate(c.var.tenant, actor(c), idOf(params.id)));
  on(api.sample, async (c, { params }) => formulas.sample(c.var.tenant, actor(c), idOf(params.id)));
  on(api.deactivate, async (c, { params }) => runs.deactivate(c.var.tenant, runActor(c), idOf(params.id)));
  on(api.pause, async (c, { params }) => runs.pause(c.var.tenant, runActor(c), idOf(params.id)));
  on(api.resume, async (c, { params }) => runs.resume(c.var.tenant, runActor(c), idOf(params.id)));
  on(api.clear, async (c, { params }) => runs.clear(c.var.tenant, runActor(c), idOf(params.id)));
  on(api.run, async (c, { params, body }) => runs.run(c.var.tenant, runActor(c), idOf(params.id), body.runOnce));
  on(api.dryRun, async (c, { params, body }) => runs.dryRun(c.var.tenant, runActor(c), idOf(params.id), body.limit));
  on(api.reprocess, async (c, { params, query }) => runs.reprocess(c.var.tenant, runActor(c), idOf(params.id), { includeReviewed: query.includeReviewed === true }));
  on(api.retryNow, async (c, { params }) => runs.retryNow(c.var.tenant, runActor(c), idOf(params.id)));
  on(api.dismissError, async (c, { params, body }) => runs.dismissError(c.var.tenant, runActor(c), idOf(params.id), body.retry));
  on(api.status, async (c, { params }) => runs.status(c.var.tenant, idOf(params.id)));
  on(api.runs, async (c, { params, query }) => runs.runs(c.var.tenant, idOf(params.id), { cursor: query.cursor, limit: query.limit }));

  for (const part of FORMULA_PART_NAMES) {
    on(api[`get:${part}`], async (c, { params }) => formulas.getPart(c.var.tenant, idOf(params.id), part));
    on(api[`put:${part}`], async (c, { params, body }) => formulas.putPart(c.var.tenant, actor(c), idOf(params.id), part, body));
    on(api[`delete:${part}`], async (c, { params }) => formulas.deletePart(c.var.tenant, actor(c), idOf(params.id), part));
  }

  return app;
}
