/**
 * A formula ready to run: its row, its parts parsed with their schemas, and both ends'
 * connectors with the contexts they are called with. Everything the stages need, loaded once per
 * run; a formula that cannot run (a part missing or no longer valid, a data source deleted) is a
 * FormulaProblem, which fails the run without retries: editing the formula is what mends it.
 */
import * as v from 'valibot';
import type { SystemId } from '../../src/domain/connectors/types.ts';
import { companionOf, type Companion } from '../../src/domain/formula/companion.ts';
import { FORMULA_PARTS, type FormulaPartBody, type FormulaPartName } from '../../src/domain/formula/parts.ts';
import type { Config } from '../config.ts';
import type { Connector, ConnectorContext, FieldReference } from '../connectors/connector.ts';
import { connectionSettings } from '../connectors/dataSources.ts';
import { grantStoreFor, type ReconnectNotices } from '../connectors/kit/grant.ts';
import { connectorOf } from '../connectors/registry.ts';
import type { SecretBox } from '../connectors/secrets.ts';
import type { FormulaRow } from '../db/repositories/formulas.ts';
import type { TenantScope } from '../db/tenancy.ts';

/** The formula itself is what fails (a missing part, a deleted data source): retrying cannot help. */
export class FormulaProblem extends Error {
  override readonly name = 'FormulaProblem';
}

export interface EngineDeps {
  secrets: SecretBox;
  config: Pick<Config, 'dataDir' | 'connectorAllowPrivateHosts'>;
  /** tells a data source's owner when it needs reconnecting */
  notices?: ReconnectNotices;
}

export interface FormulaEnd {
  system: SystemId;
  connector: Connector;
  ctx: ConnectorContext;
  object: string;
  /** the formula's additional settings for this end */
  settings: Record<string, string>;
}

export interface FormulaPlan {
  formula: FormulaRow;
  tenant: TenantScope;
  source: FormulaEnd;
  destination: FormulaEnd;
  mapping: FormulaPartBody['mapping'];
  transform: FormulaPartBody['transform'] | null;
  validation: FormulaPartBody['validation'] | null;
  matching: FormulaPartBody['matching'];
  routing: FormulaPartBody['routing'];
  schedule: FormulaPartBody['schedule'] | null;
  autosend: boolean;
  /** the destination fields the formula maps: what candidates are scored over */
  mappedFields: string[];
  /** mapped destination fields that name a parent record the destination must already hold */
  references: FieldReference[];
  /**
   * A gift from each row (src/domain/formula/companion.ts): its companion object and field
   * mapping, or null. Each row then makes a second record, `<key>#gift`, which waits in
   * relationship-match until the row's record is sent and is written after it with its id.
   */
  gift: { companion: Companion; end: FormulaEnd; mapping: FormulaPartBody['gift'] } | null;
  /**
   * Whether searches go to the destination's candidate index (server/engine/candidateIndex.ts),
   * which the process loads and keeps: runs and reprocessing, which match batch after batch; a
   * dry run or a person's send asks the destination.
   */
  indexCandidates: boolean;
}

const REQUIRED: FormulaPartName[] = ['mapping', 'matching', 'routing'];

async function end(tenant: TenantScope, deps: EngineDeps, id: string | null, object: string | null, settings: Record<string, string>, role: string, signal?: AbortSignal, runId?: string): Promise<FormulaEnd> {
  if (!id || !object) throw new FormulaProblem(`The formula has no ${role}.`);
  const ds = await tenant.dataSources.get(id);
  if (!ds) throw new FormulaProblem(`The formula's ${role} data source no longer exists.`);
  const system = ds.system as SystemId;
  // the vendor refused its grant: no run tries it again until a person reconnects it
  if (ds.needsReconnecting) throw new FormulaProblem(`The ${role} data source ${ds.displayName} needs reconnecting: ${ds.needsReconnecting}`);
  let plain: Record<string, string>;
  try {
    plain = connectionSettings(deps.secrets, ds);
  } catch (err) {
    throw new FormulaProblem(`The ${role}'s saved credentials could not be opened: ${err instanceof Error ? err.message : String(err)}`);
  }
  return {
    system,
    connector: connectorOf(system),
    ctx: {
      tenant, settings: plain, dataSourceId: ds.id, dataDir: deps.config.dataDir, grant: grantStoreFor(tenant, deps.secrets, ds.id, deps.notices), endSettings: settings,
      network: { allowPrivateHosts: deps.config.connectorAllowPrivateHosts }, ...(signal ? { signal } : {}), ...(runId ? { runId } : {}),
    },
    object,
    settings,
  };
}

/** The formula's destination alone, for work that reads of it (its fields' labels) without running the formula. */
export function destinationEnd(tenant: TenantScope, deps: EngineDeps, formula: FormulaRow, signal?: AbortSignal): Promise<FormulaEnd> {
  return end(tenant, deps, formula.destinationDataSourceId, formula.destinationObject, formula.destinationSettings, 'destination', signal);
}

/**
 * Whether the formula sends automatically now. A run asks again before each batch it stores, so
 * turning autosend off while a run collects holds the records it collects from then on.
 */
export async function sendsAutomatically(tenant: TenantScope, formulaId: string): Promise<boolean> {
  const row = await tenant.parts.get(formulaId, 'autosend');
  const parsed = row ? v.safeParse(FORMULA_PARTS.autosend.schema, row.body) : null;
  return parsed?.success ? parsed.output.enabled : false;
}

/** The formula's gift from each row, when it has one and its destination object a companion. */
function giftOf(destination: FormulaEnd, mapping: FormulaPartBody['gift'] | null): FormulaPlan['gift'] {
  const companion = companionOf(destination.system, destination.object);
  if (!mapping || !companion) return null;
  return { companion, mapping, end: { ...destination, object: companion.object, settings: {} } };
}

/** `runId`: the run whose job loads it, told to the destination (a run's writes grouped in one journal entry batch across its jobs) */
export async function loadPlan(tenant: TenantScope, deps: EngineDeps, formula: FormulaRow, signal?: AbortSignal, runId?: string): Promise<FormulaPlan> {
  const rows = await tenant.parts.list(formula.id);
  const parts = new Map(rows.map((r) => [r.part, r.body]));
  const missing = REQUIRED.filter((p) => !parts.has(p));
  if (missing.length) throw new FormulaProblem(`The formula has no ${missing.map((p) => FORMULA_PARTS[p].label).join(', ')}.`);
  const part = <P extends FormulaPartName>(name: P): FormulaPartBody[P] | null => {
    if (!parts.has(name)) return null;
    const result = v.safeParse(FORMULA_PARTS[name].schema, parts.get(name));
    if (!result.success) throw new FormulaProblem(`The formula's ${FORMULA_PARTS[name].label} is no longer valid: ${result.issues[0]?.message ?? 'edit it in the wizard'}.`);
    return result.output as FormulaPartBody[P];
  };
  const mapping = part('mapping')!;
  const mappedFields = [...new Set(mapping.fields.filter((f) => f.kind !== 'ignored').map((f) => f.destination))];
  const source = await end(tenant, deps, formula.sourceDataSourceId, formula.sourceObject, formula.sourceSettings, 'source', signal);
  const destination = await end(tenant, deps, formula.destinationDataSourceId, formula.destinationObject, formula.destinationSettings, 'destination', signal, runId);
  return {
    formula,
    tenant,
    source,
    destination,
    mapping,
    transform: part('transform'),
    validation: part('validation'),
    matching: part('matching')!,
    routing: part('routing')!,
    schedule: part('schedule'),
    autosend: part('autosend')?.enabled ?? false,
    mappedFields,
    references: (destination.connector.references?.(destination.object) ?? []).filter((r) => mappedFields.includes(r.field)),
    gift: giftOf(destination, part('gift')),
    indexCandidates: false,
  };
}
