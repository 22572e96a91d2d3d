/**
 * Formulas (SPEC.md sections 2 to 5): drafts made by the wizard, their source and destination,
 * and their parts, each saved on its own. Every save is one transaction: a failed save changes
 * nothing. Changing a top-level object wipes the parts that name its fields (after the browser's
 * confirmation); editing a live formula marks it 'needs reprocess'.
 */
import type { Logger } from 'pino';
import type * as v from 'valibot';
import type { Deletion, FormulaViewOut } from '../../src/domain/api/formulas.ts';
import { connectorFor } from '../../src/domain/connectors/catalogue.ts';
import { formFields, validateSettings } from '../../src/domain/connectors/fields.ts';
import { additionalSettingsFor, hasAdditionalSettings, type SystemId } from '../../src/domain/connectors/types.ts';
import { ARCHIVED_READ_ONLY, DomainError } from '../../src/domain/errors.ts';
import { formulaDisplayName, formulaNameFromFile, type CreateFormula, type FormulaEnd, type UpdateFormula } from '../../src/domain/formula/formula.ts';
import { companionMappingProblem, companionOf } from '../../src/domain/formula/companion.ts';
import { FORMULA_PARTS, readOnlyMappingProblem, type FormulaPartName, type Gift, type Mapping, type Matching } from '../../src/domain/formula/parts.ts';
import { formulaListStatus } from '../../src/domain/formula/statuses.ts';
import type { Config } from '../config.ts';
import type { FieldInfo } from '../connectors/connector.ts';
import { connectionSettings } from '../connectors/dataSources.ts';
import { grantStoreFor } from '../connectors/kit/grant.ts';
import { connectorOf } from '../connectors/registry.ts';
import type { SecretBox } from '../connectors/secrets.ts';
import type { DataSourceRow } from '../db/repositories/dataSources.ts';
import type { FormulaChanges, FormulaRow } from '../db/repositories/formulas.ts';
import type { TenantScope } from '../db/tenancy.ts';
import { connectorFailure } from './connections.ts';
import { recordEvent } from './events.ts';
import type { FormulaRunsService } from './formulaRuns.ts';

export interface FormulaActor {
  userId: string;
  name: string;
  correlationId: string;
  log: Logger;
}

/** The parts that name the fields of the source or destination object: a new object makes them meaningless. */
export const OBJECT_BOUND_PARTS: FormulaPartName[] = ['mapping', 'transform', 'validation', 'summary-fields', 'matching', 'routing', 'gift'];
/** SAMPLE_ROWS of SPEC.md section 9: the preview shows as many rows as an upload keeps */
const SAMPLE_SIZE = 20;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

const notFound = () => new DomainError('not-found', 'No such formula.');

/** An archived formula is read-only: its wizard and every edit are refused until it is unarchived. */
function refuseArchived(row: FormulaRow): void {
  if (row.archivedOn) throw new DomainError('formula-archived', ARCHIVED_READ_ONLY);
}

export function formulasService(deps: { box: SecretBox; config: Pick<Config, 'dataDir' | 'connectorAllowPrivateHosts'>; runs: Pick<FormulaRunsService, 'activateSchedule' | 'queueWaitingFiles' | 'nextScheduled' | 'stopForArchive' | 'cancelJobs'> }) {
  async function load(tenant: TenantScope, id: string, forUpdate = false): Promise<FormulaRow> {
    const row = forUpdate ? await tenant.formulas.getForUpdate(id) : await tenant.formulas.get(id);
    if (!row) throw notFound();
    return row;
  }

  async function viewOf(tenant: TenantScope, row: FormulaRow, sources?: Map<string, DataSourceRow>): Promise<FormulaViewOut> {
    const sourceRow = async (id: string | null) => (id ? sources?.get(id) ?? await tenant.dataSources.get(id) : undefined);
    const end = async (id: string | null, object: string | null, settings: Record<string, string>, role: 'source' | 'destination') => {
      const ds = await sourceRow(id);
      if (!ds || !object) return null;
      const system = ds.system as SystemId;
      return { dataSourceId: ds.id, object, settings, system, displayName: ds.displayName, hasAdditionalSettings: hasAdditionalSettings(connectorFor(system), role, object),
        objectsKept: system === 'file-upload' || ds.objectsRefreshedOn != null };
    };
    const parts = await tenant.parts.list(row.id);
    return {
      id: row.id, name: row.name, isDraft: row.isDraft, usesFileUpload: row.usesFileUpload,
      sourceDataSource: await end(row.sourceDataSourceId, row.sourceObject, row.sourceSettings, 'source'),
      firstDestinationDataSource: await end(row.destinationDataSourceId, row.destinationObject, row.destinationSettings, 'destination'),
      sampleUploadId: row.sampleUploadId, status: formulaListStatus(row), jobStatus: row.jobStatus, needsReprocess: row.needsReprocess,
      parts: parts.map((p) => p.part), archivedOn: row.archivedOn?.toISOString() ?? null, createdOn: row.createdOn.toISOString(), modifiedOn: row.modifiedOn.toISOString(),
    };
  }

  /**
   * A source or destination as given: the tenant's data source, in a role its system has, with
   * settings its schema accepts for the end's object. Settings of the system's that belong to other
   * objects (a gift batch prefix on a constituents formula) are dropped: they would do nothing.
   */
  async function checkEnd(tenant: TenantScope, end: FormulaEnd, role: 'source' | 'destination'): Promise<{ ds: DataSourceRow; settings: Record<string, string> }> {
    const ds = await tenant.dataSources.get(end.dataSourceId);
    if (!ds) throw new DomainError('bad-request', `No such data source for the ${role}.`, { errors: { [role]: 'Choose a data source' } }, 'validation-failed');
    const def = connectorFor(ds.system as SystemId);
    if (!def.roles[role]) {
      throw new DomainError('bad-request', `${def.name} cannot be a formula's ${role}.`, { errors: { [role]: `${def.name} cannot be a ${role}` } }, 'validation-failed');
    }
    const all = def.additionalSettings[role];
    if (!all) {
      if (Object.keys(end.settings).length) throw new DomainError('bad-request', `${def.name} has no additional settings as a ${role}.`, {}, 'validation-failed');
      return { ds, settings: end.settings };
    }
    const schema = additionalSettingsFor(def, role, end.object);
    const keys = new Set(schema ? formFields(schema).map((f) => f.key) : []);
    const settings = Object.fromEntries(Object.entries(end.settings).filter(([k]) => keys.has(k)));
    if (schema) {
      const result = validateSettings(schema, settings);
      if (!result.success) {
        throw new DomainError('bad-request', Object.values(result.errors).join(' '), { errors: prefixed(`${role}.settings`, result.errors) }, 'validation-failed');
      }
    }
    return { ds, settings };
  }

  /**
   * A mapping that fills a field the destination sets itself is refused, naming the fields. When
   * the destination's fields cannot be read, the mapping is saved as it is: the wizard's mapping
   * step cannot open without them, and a send is refused by the destination in words.
   */
  async function refuseReadOnlyMapping(tenant: TenantScope, actor: FormulaActor, row: FormulaRow, mapping: Mapping): Promise<void> {
    if (!row.destinationDataSourceId || !row.destinationObject || !mapping.fields.some((f) => f.kind !== 'ignored')) return;
    const ds = await tenant.dataSources.get(row.destinationDataSourceId);
    if (!ds) return;
    let fields: FieldInfo[];
    try {
      fields = await connectorOf(ds.system as SystemId).describeFields({
        tenant, settings: connectionSettings(deps.box, ds), dataSourceId: ds.id, dataDir: deps.config.dataDir,
        grant: grantStoreFor(tenant, deps.box, ds.id), network: { allowPrivateHosts: deps.config.connectorAllowPrivateHosts },
      }, row.destinationObject);
    } catch (err) {
      actor.log.warn({ err, formulaId: row.id }, 'the destination\'s fields could not be read to check the mapping');
      return;
    }
    const problem = readOnlyMappingProblem(mapping, fields);
    if (problem) throw new DomainError('bad-request', problem, { errors: { mapping: problem } }, 'validation-failed');
  }

  /**
   * Matching scenarios the destination's search cannot answer (Mailchimp finds members by e-mail
   * only) are refused with the system's reason. When the system cannot be asked, the scenarios are
   * saved as they are: a send is then refused by the destination in words.
   */
  async function refuseUnanswerableMatching(tenant: TenantScope, actor: FormulaActor, row: FormulaRow, matching: Matching): Promise<void> {
    if (!row.destinationDataSourceId || !row.destinationObject || !Array.isArray(matching?.scenarios) || !matching.scenarios.length) return;
    const ds = await tenant.dataSources.get(row.destinationDataSourceId);
    if (!ds) return;
    const connector = connectorOf(ds.system as SystemId);
    if (!connector.matchingProblem) return;
    const scenarios = matching.scenarios.map((s) => ({ name: s.name, fields: s.criteria.map((c) => c.destination).filter((f): f is string => !!f) }));
    let problem: string | null;
    try {
      problem = await connector.matchingProblem({
        tenant, settings: connectionSettings(deps.box, ds), dataSourceId: ds.id, dataDir: deps.config.dataDir, endSettings: row.destinationSettings,
        grant: grantStoreFor(tenant, deps.box, ds.id), network: { allowPrivateHosts: deps.config.connectorAllowPrivateHosts },
      }, row.destinationObject, scenarios);
    } catch (err) {
      actor.log.warn({ err, formulaId: row.id }, 'the destination could not be asked whether it can answer the matching scenarios');
      return;
    }
    if (problem) throw new DomainError('bad-request', problem, { errors: { matching: problem } }, 'validation-failed');
  }

  /** A gift from each row needs a destination object that has one, its amount and date mapped, and its constituent left to the engine. */
  async function refuseGift(tenant: TenantScope, row: FormulaRow, gift: Gift): Promise<void> {
    // like a mapping, a gift may be saved before the destination is chosen (a destination with none leaves it unused)
    if (!row.destinationDataSourceId || !row.destinationObject) return;
    const ds = await tenant.dataSources.get(row.destinationDataSourceId);
    const companion = companionOf(ds?.system, row.destinationObject);
    if (!companion) {
      throw new DomainError('bad-request', 'Only a formula that writes constituents to the Sandbox CRM can also write a gift from each row.', { errors: { gift: 'No gift for this destination' } }, 'validation-failed');
    }
    const problem = companionMappingProblem(companion, gift.fields);
    if (problem) throw new DomainError('bad-request', problem, { errors: { gift: problem } }, 'validation-failed');
  }

  const prefixed = (prefix: string, errors: Record<string, string>) =>
    Object.fromEntries(Object.entries(errors).map(([k, m]) => [`${prefix}.${k}`, m]));

  /** A part saved on a live formula leaves its records to be reprocessed; a draft has none. */
  const touch = async (tenant: TenantScope, row: FormulaRow, actor: FormulaActor) =>
    tenant.formulas.update(row.id, { modifiedBy: actor.userId, ...(row.isDraft ? {} : { needsReprocess: true }) });

  /**
   * A live formula waiting for its next scheduled run takes its new schedule at once: else it would
   * run (and show it runs) at the old time once more. A run under way, or a paused or inactive
   * formula, holds no time; the run's end or the resume reads the new schedule.
   */
  const reschedule = async (tenant: TenantScope, row: FormulaRow) => {
    if (!row.isDraft && row.nextRunAt) await tenant.formulas.setRunState(row.id, { nextRunAt: await deps.runs.nextScheduled(tenant, row) });
  };

  return {
    async list(tenant: TenantScope): Promise<FormulaViewOut[]> {
      const [rows, sources] = await Promise.all([tenant.formulas.list(), tenant.dataSources.list()]);
      const byId = new Map<string, DataSourceRow>();
      for (const s of sources) byId.set(s.id, { id: s.id, system: s.system, displayName: s.displayName } as DataSourceRow);
      return Promise.all(rows.map((r) => viewOf(tenant, r, byId)));
    },

    get: async (tenant: TenantScope, id: string) => viewOf(tenant, await load(tenant, id)),

    async create(tenant: TenantScope, actor: FormulaActor, body: CreateFormula): Promise<FormulaViewOut> {
      return tenant.transaction(async (tx) => {
        const row = await tx.formulas.create({
          name: body.name, usesFileUpload: body.usesFileUpload, isDraft: true, createdBy: actor.userId, modifiedBy: actor.userId,
        });
        await recordEvent(tx, { actor, type: 'formula.created', description: `Created the formula ${formulaDisplayName(row)}`, correlationId: actor.correlationId, formulaId: row.id });
        return viewOf(tx, row);
      });
    },

    /**
     * A draft file-upload formula from an upload (the upload screen's 'Create a formula from this
     * file'): its source is the tenant's built-in File upload data source, so no data source rights
     * are needed; the upload is its sample and its source object, as the wizard would save them.
     */
    async fromUpload(tenant: TenantScope, actor: FormulaActor, uploadId: string): Promise<FormulaViewOut> {
      return tenant.transaction(async (tx) => {
        const upload = await tx.uploads.get(uploadId);
        if (!upload) throw new DomainError('not-found', 'No such upload.');
        const source = await tx.dataSources.builtInFileUpload();
        // every tenant has one from migration 0025 on: its absence is a fault, not the caller's
        if (!source) throw new Error(`tenant ${tenant.tenantId} has no built-in file upload data source`);
        const row = await tx.formulas.create({
          name: formulaNameFromFile(upload.fileName), isDraft: true, usesFileUpload: true,
          sourceDataSourceId: source.id, sourceObject: upload.id, sourceSettings: {}, sampleUploadId: upload.id,
          createdBy: actor.userId, modifiedBy: actor.userId,
        });
        await recordEvent(tx, {
          actor, type: 'formula.created', correlationId: actor.correlationId, formulaId: row.id,
          description: `Created the formula ${formulaDisplayName(row)} from the file ${upload.fileName}`, details: { uploadId: upload.id },
        });
        return viewOf(tx, row);
      });
    },

    async update(tenant: TenantScope, actor: FormulaActor, id: string, body: UpdateFormula): Promise<FormulaViewOut> {
      return tenant.transaction(async (tx) => {
        const row = await load(tx, id, true);
        refuseArchived(row);
        const changes: FormulaChanges = { modifiedBy: actor.userId };
        if (body.name !== undefined) changes.name = body.name;
        if (body.usesFileUpload !== undefined) changes.usesFileUpload = body.usesFileUpload;
        let objectChanged = false;
        for (const role of ['source', 'destination'] as const) {
          const end = role === 'source' ? body.source : body.destination;
          if (end === undefined) continue;
          const [idKey, objectKey, settingsKey] = role === 'source'
            ? (['sourceDataSourceId', 'sourceObject', 'sourceSettings'] as const)
            : (['destinationDataSourceId', 'destinationObject', 'destinationSettings'] as const);
          if (end === null) {
            objectChanged ||= row[objectKey] !== null;
            Object.assign(changes, { [idKey]: null, [objectKey]: null, [settingsKey]: {} });
            continue;
          }
          const { ds, settings } = await checkEnd(tx, end, role);
          objectChanged ||= row[objectKey] !== null && (row[idKey] !== ds.id || row[objectKey] !== end.object);
          Object.assign(changes, { [idKey]: ds.id, [objectKey]: end.object, [settingsKey]: settings });
          // a file-upload formula takes its records from uploads (SPEC.md section 3, usesFileUpload)
          if (role === 'source') changes.usesFileUpload = ds.system === 'file-upload';
        }
        if (body.sampleUploadId !== undefined) {
          if (body.sampleUploadId !== null && !(await tx.uploads.get(body.sampleUploadId))) {
            throw new DomainError('bad-request', 'No such upload.', { errors: { sampleUploadId: 'Upload a file first' } }, 'validation-failed');
          }
          changes.sampleUploadId = body.sampleUploadId;
        }
        if (objectChanged) {
          const bound = (await tx.parts.list(row.id)).map((p) => p.part).filter((p) => OBJECT_BOUND_PARTS.includes(p));
          if (bound.length && !body.confirmWipe) throw new DomainError('formula-wipe-unconfirmed', undefined, { wipes: bound });
          await tx.parts.remove(row.id, bound);
        }
        if (!row.isDraft) changes.needsReprocess = true;
        const updated = (await tx.formulas.update(row.id, changes))!;
        await recordEvent(tx, {
          actor, type: 'formula.updated', description: `Edited the formula ${formulaDisplayName(updated)}`, correlationId: actor.correlationId, formulaId: row.id,
          details: { fields: Object.keys(body).filter((k) => k !== 'confirmWipe'), wiped: objectChanged },
        });
        return viewOf(tx, updated);
      });
    },

    /**
     * A draft, or an archived formula, goes with its parts, runs and records in one transaction; the
     * activity history keeps its events and says how many records went. A formula that may still
     * run is archived first, so nothing is deleted from under a run.
     */
    async remove(tenant: TenantScope, actor: FormulaActor, id: string): Promise<void> {
      await tenant.transaction(async (tx) => {
        const row = await load(tx, id, true);
        if (!row.isDraft && !row.archivedOn) throw new DomainError('formula-not-archived', `Archive the formula ${formulaDisplayName(row)} before deleting it.`);
        const runs = await tx.runs.count(row.id);
        const records = await tx.records.clear(row.id);
        await tx.formulas.remove(row.id);
        await recordEvent(tx, {
          actor, type: 'formula.deleted', correlationId: actor.correlationId, formulaId: row.id,
          description: `Deleted the formula ${formulaDisplayName(row)}${row.isDraft ? '' : ` with ${plural(records, 'record')}`}`,
          details: { records, runs, wasDraft: row.isDraft },
        });
      });
    },

    /** What deleting the formula would take with it, for the confirmation that says so. */
    async deletion(tenant: TenantScope, id: string): Promise<Deletion> {
      const row = await load(tenant, id);
      const byState = await tenant.records.countByState(row.id);
      return { records: Object.values(byState).reduce((a, n) => a + (n ?? 0), 0), runs: await tenant.runs.count(row.id) };
    },

    /** A live formula stops for good and keeps its records and history: no schedule, no runs, no uploads. */
    async archive(tenant: TenantScope, actor: FormulaActor, id: string): Promise<FormulaViewOut> {
      const { view, jobIds } = await tenant.transaction(async (tx) => {
        const row = await load(tx, id, true);
        if (row.isDraft) throw new DomainError('formula-draft-not-archived', `${formulaDisplayName(row)} is a draft: delete it instead.`);
        if (row.archivedOn) throw new DomainError('formula-archived', `The formula ${formulaDisplayName(row)} is archived already.`);
        const jobIds = await deps.runs.stopForArchive(tx, row.id);
        const updated = (await tx.formulas.update(row.id, { archivedOn: new Date(), modifiedBy: actor.userId }))!;
        await recordEvent(tx, {
          actor, type: 'formula.archived', correlationId: actor.correlationId, formulaId: row.id,
          description: `Archived the formula ${formulaDisplayName(row)}`, details: { cancelledRuns: jobIds.length },
        });
        return { view: await viewOf(tx, updated), jobIds };
      });
      // after the commit: a job that starts meanwhile finds its run ended
      await deps.runs.cancelJobs(jobIds, actor.log);
      return view;
    },

    /** An archived formula comes back inactive: it runs again once someone activates it. */
    async unarchive(tenant: TenantScope, actor: FormulaActor, id: string): Promise<FormulaViewOut> {
      return tenant.transaction(async (tx) => {
        const row = await load(tx, id, true);
        if (!row.archivedOn) throw new DomainError('formula-not-archived', `The formula ${formulaDisplayName(row)} is not archived.`);
        const updated = (await tx.formulas.update(row.id, { archivedOn: null, modifiedBy: actor.userId }))!;
        await recordEvent(tx, { actor, type: 'formula.unarchived', correlationId: actor.correlationId, formulaId: row.id, description: `Unarchived the formula ${formulaDisplayName(row)}` });
        return viewOf(tx, updated);
      });
    },

    /**
     * A new draft from a formula: the same data sources, objects, settings and every saved part,
     * named "Copy of <name>"; none of its records, runs, watermark or running schedule.
     */
    async copy(tenant: TenantScope, actor: FormulaActor, id: string): Promise<FormulaViewOut> {
      return tenant.transaction(async (tx) => {
        const row = await load(tx, id);
        const copy = await tx.formulas.create({
          name: `Copy of ${formulaDisplayName(row)}`, isDraft: true, usesFileUpload: row.usesFileUpload,
          sourceDataSourceId: row.sourceDataSourceId, sourceObject: row.sourceObject, sourceSettings: row.sourceSettings,
          destinationDataSourceId: row.destinationDataSourceId, destinationObject: row.destinationObject, destinationSettings: row.destinationSettings,
          sampleUploadId: row.sampleUploadId, createdBy: actor.userId, modifiedBy: actor.userId,
        });
        for (const part of await tx.parts.list(row.id)) await tx.parts.upsert(copy.id, part.part, part.body, actor.userId);
        await recordEvent(tx, {
          actor, type: 'formula.created', correlationId: actor.correlationId, formulaId: copy.id,
          description: `Copied the formula ${formulaDisplayName(row)} as ${formulaDisplayName(copy)}`, details: { copiedFrom: row.id },
        });
        return viewOf(tx, copy);
      });
    },

    async getPart<P extends FormulaPartName>(tenant: TenantScope, id: string, part: P) {
      await load(tenant, id);
      const row = await tenant.parts.get(id, part);
      if (!row) throw new DomainError('not-found', `The formula has no ${FORMULA_PARTS[part].label} yet.`);
      return { part, body: row.body as v.InferOutput<(typeof FORMULA_PARTS)[P]['schema']>, modifiedOn: row.modifiedOn.toISOString() };
    },

    async putPart(tenant: TenantScope, actor: FormulaActor, id: string, part: FormulaPartName, body: unknown) {
      // asked before the transaction: describing the destination is a call to its system
      if (part === 'mapping') await refuseReadOnlyMapping(tenant, actor, await load(tenant, id), body as Mapping);
      if (part === 'matching') await refuseUnanswerableMatching(tenant, actor, await load(tenant, id), body as Matching);
      return tenant.transaction(async (tx) => {
        const row = await load(tx, id, true);
        refuseArchived(row);
        if (part === 'gift') await refuseGift(tx, row, body as Gift);
        if (part === 'schedule' && row.usesFileUpload) {
          throw new DomainError('bad-request', 'A file-upload formula runs for each uploaded file; it has no schedule.', {}, 'validation-failed');
        }
        const saved = await tx.parts.upsert(row.id, part, body, actor.userId);
        await touch(tx, row, actor);
        if (part === 'schedule') await reschedule(tx, row);
        await recordEvent(tx, {
          actor, type: 'formula.part.saved', description: `Saved ${FORMULA_PARTS[part].label} of ${formulaDisplayName(row)}`,
          correlationId: actor.correlationId, formulaId: row.id, details: { part },
        });
        return { part, body: saved.body, modifiedOn: saved.modifiedOn.toISOString() };
      });
    },

    async deletePart(tenant: TenantScope, actor: FormulaActor, id: string, part: FormulaPartName): Promise<void> {
      await tenant.transaction(async (tx) => {
        const row = await load(tx, id, true);
        refuseArchived(row);
        if (!(await tx.parts.remove(row.id, [part]))) throw new DomainError('not-found', `The formula has no ${FORMULA_PARTS[part].label}.`);
        await touch(tx, row, actor);
        if (part === 'schedule') await reschedule(tx, row);
        await recordEvent(tx, {
          actor, type: 'formula.part.deleted', description: `Removed ${FORMULA_PARTS[part].label} of ${formulaDisplayName(row)}`,
          correlationId: actor.correlationId, formulaId: row.id, details: { part },
        });
      });
    },

    /** The processing step: a complete draft becomes a formula that runs. */
    async activate(tenant: TenantScope, actor: FormulaActor, id: string): Promise<FormulaViewOut> {
      const view = await tenant.transaction(async (tx) => {
        const row = await load(tx, id, true);
        refuseArchived(row);
        const parts = new Set((await tx.parts.list(row.id)).map((p) => p.part));
        const missing = [
          ...(row.name ? [] : ['name']),
          ...(row.sourceDataSourceId && row.sourceObject ? [] : ['source']),
          ...(row.destinationDataSourceId && row.destinationObject ? [] : ['destination']),
          ...(['mapping', 'matching', 'routing'] as const).filter((p) => !parts.has(p)),
          ...(row.usesFileUpload || parts.has('schedule') ? [] : ['schedule']),
        ];
        if (missing.length) throw new DomainError('formula-incomplete', `Complete these first: ${missing.join(', ')}.`, { missing });
        const updated = (await tx.formulas.update(row.id, { isDraft: false, modifiedBy: actor.userId }))!;
        // live from now: its schedule starts (a file-upload formula waits for files)
        await deps.runs.activateSchedule(tx, row.id);
        await recordEvent(tx, { actor, type: 'formula.activated', description: `Activated the formula ${formulaDisplayName(updated)}`, correlationId: actor.correlationId, formulaId: row.id });
        return viewOf(tx, (await tx.formulas.get(row.id))!);
      });
      // after the commit, so the worker finds the runs it is given
      await deps.runs.queueWaitingFiles(tenant, { actor: { userId: actor.userId, name: actor.name }, correlationId: actor.correlationId, log: actor.log }, id);
      return view;
    },

    /** Up to 20 rows of the source, read as the engine reads them, for the mapping preview. */
    async sample(tenant: TenantScope, actor: FormulaActor, id: string): Promise<{ fields: string[]; rows: Record<string, unknown>[] }> {
      const row = await load(tenant, id);
      if (row.usesFileUpload && row.sampleUploadId) {
        const upload = await tenant.uploads.get(row.sampleUploadId);
        if (upload) {
          return { fields: upload.headers, rows: upload.sampleRows.map((cells) => Object.fromEntries(upload.headers.map((h, i) => [h, cells[i] ?? '']))) };
        }
      }
      if (!row.sourceDataSourceId || !row.sourceObject) return { fields: [], rows: [] };
      const ds = await tenant.dataSources.get(row.sourceDataSourceId);
      if (!ds) return { fields: [], rows: [] };
      const ctx = { tenant, settings: connectionSettings(deps.box, ds), dataSourceId: ds.id, dataDir: deps.config.dataDir, network: { allowPrivateHosts: deps.config.connectorAllowPrivateHosts } };
      const rows: Record<string, unknown>[] = [];
      try {
        for await (const batch of connectorOf(ds.system as SystemId).pull(ctx, row.sourceObject, null, { batchSize: SAMPLE_SIZE })) {
          rows.push(...batch.records.map((r) => r.fields));
          if (rows.length >= SAMPLE_SIZE) break;
        }
      } catch (err) {
        throw connectorFailure(err, ds.system, actor.log);
      }
      const sample = rows.slice(0, SAMPLE_SIZE);
      return { fields: [...new Set(sample.flatMap((r) => Object.keys(r)))], rows: sample };
    },
  };
}

export type FormulasService = ReturnType<typeof formulasService>;
