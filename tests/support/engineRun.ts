/**
 * Making records the way users do: a live formula from a flat-file drop folder into the Sandbox
 * CRM, a CSV dropped in, a run, and waiting for it to finish (tests/api/records.test.ts; the
 * same steps as tests/api/engine.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { RunView } from '../../src/domain/api/formulas.ts';
import { dropFolderPath } from '../../server/connectors/fileSources/flatFile.ts';
import { call } from './api.ts';
import { tenantSession, type TenantSession } from './connections.ts';
import { VALID_PARTS } from './formulaParts.ts';

const F = '/web-api/v1/formulas';
export { tenantSession, type TenantSession };
export type Send = (p: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }) => Promise<Response>;

export const sender = (base: string, who: TenantSession, tenantId = who.tenantId): Send =>
  (p, init = {}) => call(base, p, { ...init, headers: { ...who.headers, tenantId, ...init.headers } });

/**
 * A vendor data source made and tested through the API as the Administrator, beside the tenant's
 * Sandbox CRM: what a whole-formula test of a vendor source starts from. `tested` is the
 * connection test's answer.
 */
export async function connectedSource(base: string, system: string, displayName: string, settings: Record<string, string>) {
  const admin = await tenantSession(base, 'administrator@demo.tributary.test');
  const send = sender(base, admin);
  const made = await send('/integrations/v1/data-sources', { method: 'POST', body: { system, displayName, settings } });
  expect(made.status, await made.clone().text()).toBe(201);
  const sourceId = (await made.json() as { id: string }).id;
  const { dataSources } = await (await send('/integrations/v1/data-sources')).json() as { dataSources: { id: string; system: string }[] };
  const tested = await (await send(`/integrations/v1/data-sources/${sourceId}/test`, { method: 'POST' })).json() as Record<string, unknown>;
  expect(tested).toMatchObject({ status: 'success' });
  return { admin, send, sourceId, crmId: dataSources.find((d) => d.system === 'sandbox-crm')!.id, tested };
}

/** Writes a CSV into a tenant's drop folder, newer than anything before it. */
export function dropCsv(dataDir: string, tenantId: string, folder: string, name: string, rows: string[][]): void {
  const dir = dropFolderPath(dataDir, tenantId, folder);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, rows.map((r) => r.map((c) => `"${c.replaceAll('"', '""')}"`).join(',')).join('\n'));
  const t = new Date(Date.now() + fs.readdirSync(dir).length * 1000);
  fs.utimesSync(file, t, t);
}

/** One end of a formula: a data source, its object, and the end's own settings. */
export interface FormulaEnd { dataSourceId: string; object: string; settings?: Record<string, string> }

/**
 * Parts for a formula that sends what it collects: every record Ready (matched or new) and sent
 * automatically, nothing transformed or validated; the vendor journeys' formulas start from these.
 */
export const AUTOSENDING_PARTS = {
  ...VALID_PARTS, transform: { fields: [] }, validation: { rules: [] },
  routing: { ...VALID_PARTS.routing, unmatched: 'ready' as const, singleMatch: 'ready' as const },
  schedule: { mode: 'continuous' as const }, autosend: { enabled: true },
};

/** A formula between two ends with these parts saved, activated unless `live` is false. */
export async function formulaBetween(send: Send, ends: { source: FormulaEnd; destination: FormulaEnd }, parts: Record<string, unknown>, live = true): Promise<string> {
  const { id } = await (await send(F, { method: 'POST', body: { name: `Formula ${Math.random().toString(36).slice(2, 8)}` } })).json() as { id: string };
  const res = await send(`${F}/${id}`, { method: 'PATCH', body: ends });
  expect(res.status, await res.clone().text()).toBe(200);
  for (const [part, body] of Object.entries(parts)) {
    const put = await send(`${F}/${id}/parts/${part}`, { method: 'PUT', body });
    expect(put.status, `${part}: ${await put.clone().text()}`).toBe(200);
  }
  if (live) {
    const activated = await send(`${F}/${id}/activate`, { method: 'POST' });
    expect(activated.status, await activated.clone().text()).toBe(200);
  }
  return id;
}

/** A live formula from `source` (a flat-file data source) into the Sandbox CRM's constituents. */
export async function liveFormula(send: Send, ends: { source: string; crm: string; object: string }, parts: Partial<typeof VALID_PARTS> = {}): Promise<string> {
  return formulaBetween(send, { source: { dataSourceId: ends.source, object: ends.object }, destination: { dataSourceId: ends.crm, object: 'constituents' } },
    { ...VALID_PARTS, schedule: { mode: 'continuous' as const }, ...parts });
}

/** Waits for a run of the formula to finish (or to be as `until` says), reading its run history. */
export async function waitForRun(send: Send, formulaId: string, runId: string, timeoutMs = 60_000, until: (run: RunView) => boolean = (r) => !!r.finishedOn): Promise<RunView> {
  const stop = Date.now() + timeoutMs;
  for (;;) {
    const { runs } = await (await send(`${F}/${formulaId}/runs`)).json() as { runs: RunView[] };
    const run = runs.find((r) => r.id === runId);
    if (run && until(run)) return run;
    if (Date.now() > stop) throw new Error(`run ${runId} did not finish: ${JSON.stringify(run)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Runs the formula now and waits for the run to finish. */
export async function runToEnd(send: Send, formulaId: string, timeoutMs = 60_000): Promise<RunView> {
  const started = await send(`${F}/${formulaId}/run`, { method: 'POST', body: {} });
  expect(started.status, await started.clone().text()).toBe(202);
  return waitForRun(send, formulaId, (await started.json() as RunView).id, timeoutMs);
}
