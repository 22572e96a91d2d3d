/**
 * What each wizard step loads and saves (SPEC.md section 2), for the step editor
 * (./stepEditor.ts): `load` answers the data the step's screen shows and the saved copy of its
 * draft; `save` stores a draft and answers the formula as the server now has it, when it changed.
 * A step without an entry has nothing of its own to load or save.
 */
import * as v from 'valibot';
import { connectorFor } from '../domain/connectors/catalogue.ts';
import { validateSettings, type SettingsValues } from '../domain/connectors/fields.ts';
import type { DataSourceListItem } from '../domain/connectors/types.ts';
import { baseSettings, ROLES, type Role } from '../domain/formula/ends.ts';
import { FormulaNameSchema, type UpdateFormula } from '../domain/formula/formula.ts';
import type { WizardStep } from '../domain/formula/wizard.ts';
import { ScheduleSchema, type Schedule } from '../domain/formula/parts.ts';
import { formulas, type FormulaView } from '../services/formulas.ts';
import { integrations } from '../services/integrations.ts';

/** what the screen shows, the draft as saved, and the draft the screen opens with */
export interface StepLoad { data: unknown; saved: unknown; draft: unknown }

export interface StepIO {
  load(formula: FormulaView): Promise<StepLoad>;
  /** `data`: what `load` read; `confirmWipe`: the user confirmed that the save removes parts of the formula */
  save(formula: FormulaView, draft: unknown, opts: { data: unknown; confirmWipe: boolean }): Promise<FormulaView | undefined>;
}

/** A draft the step refuses before sending anything, with a message per field. */
export class StepRefused extends Error {
  constructor(readonly errors: Record<string, string>) {
    super('The step refused its draft.');
  }
}

/** The calls the steps make; tests hand in fakes of the same shape. */
export interface StepCalls {
  formulas: Pick<typeof formulas, 'get' | 'getPart' | 'putPart' | 'update'>;
  integrations: Pick<typeof integrations, 'list' | 'objects'>;
}

/** The browser's own zone, which a new schedule starts with. */
export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** The scheduling step's form: every field, also those the chosen mode does not use. */
export interface ScheduleForm {
  mode: 'scheduled' | 'continuous';
  frequency: 'daily' | 'weekly';
  day: string;
  time: string;
  timeZone: string;
}

export const scheduleFormOf = (s: Schedule | null): ScheduleForm => ({
  mode: s?.mode ?? 'scheduled',
  frequency: s?.mode === 'scheduled' ? s.frequency : 'daily',
  day: s?.mode === 'scheduled' && s.frequency === 'weekly' ? s.day : '',
  time: s?.mode === 'scheduled' ? s.time : '02:00',
  timeZone: s?.mode === 'scheduled' ? s.timeZone : browserTimeZone(),
});

/** The schedule a form stands for (its draft); not yet checked. */
export const scheduleOf = (f: ScheduleForm): unknown => (f.mode === 'continuous'
  ? { mode: 'continuous' }
  : f.frequency === 'daily'
    ? { mode: 'scheduled', frequency: 'daily', time: f.time, timeZone: f.timeZone }
    : { mode: 'scheduled', frequency: 'weekly', day: f.day, time: f.time, timeZone: f.timeZone });

export const NO_UPLOAD_MESSAGE = 'No file has been uploaded yet. Upload a CSV or Excel file to use as the sample.';
export const UPLOADS_UNREADABLE_MESSAGE = 'The uploaded files could not be listed. Upload the file to use as the sample here.';

/**
 * The data sources step's draft: the name and the data source chosen per role; for a role whose
 * data source changed, the settings typed for it (a system that cannot start from its defaults)
 * and, for a file-upload source, the file uploaded here as its sample.
 */
export interface DataSourcesDraft {
  name: string;
  source: string;
  destination: string;
  needed?: Partial<Record<Role, SettingsValues>>;
  uploadId?: string;
}

const endOf = (formula: FormulaView, role: Role) => (role === 'source' ? formula.sourceDataSource : formula.firstDestinationDataSource);

/** The draft as the formula has it saved. */
export const dataSourcesDraftOf = (formula: FormulaView): DataSourcesDraft => ({
  name: formula.name ?? '',
  source: formula.sourceDataSource?.dataSourceId ?? '',
  destination: formula.firstDestinationDataSource?.dataSourceId ?? '',
});

/** The steps' loads and saves over these calls. */
export function stepIO({ formulas: f, integrations: i }: StepCalls): Partial<Record<WizardStep, StepIO>> {
  /** The object a newly chosen data source starts with: the file uploaded here, its first standard object, else the first it lists. */
  async function firstObject(role: Role, ds: DataSourceListItem, uploadId: string | undefined): Promise<string> {
    if (ds.system === 'file-upload' && uploadId) return uploadId;
    const standard = connectorFor(ds.system).objects[0]?.name;
    if (standard) return standard;
    let first: string | undefined;
    try {
      first = (await i.objects(ds.id, { silent: true })).objects[0]?.name;
    } catch (err) {
      // without the list of uploads, a file uploaded here still gives the formula its sample
      const detail = (err as { problem?: { detail?: string } }).problem?.detail;
      throw new StepRefused({ [role]: ds.system === 'file-upload' ? UPLOADS_UNREADABLE_MESSAGE : `The objects of ${ds.displayName} could not be read: ${detail ?? 'try again.'}` });
    }
    if (!first) throw new StepRefused({ [role]: ds.system === 'file-upload' ? NO_UPLOAD_MESSAGE : `${ds.displayName} lists no objects yet.` });
    return first;
  }

  return {
    'data-sources': {
      async load(formula) {
        const list = await i.list({ silent: true });
        return { data: list, saved: dataSourcesDraftOf(formula), draft: dataSourcesDraftOf(formula) };
      },
      /**
       * Sends the name, and each end whose data source changed with the object it starts with and
       * its settings; an end left as it is is not sent. A changed file-upload source makes its
       * upload the formula's sample.
       */
      async save(formula, draft, { data, confirmWipe }) {
        const d = draft as DataSourcesDraft;
        const found: Record<string, string> = {};
        const parsed = v.safeParse(FormulaNameSchema, d.name);
        if (!parsed.success) found.name = parsed.issues[0].message;
        for (const role of ROLES) if (!d[role]) found[role] = 'Choose a data source';
        if (Object.keys(found).length || !parsed.success) throw new StepRefused(found);

        const body: Partial<UpdateFormula> = { name: parsed.output };
        for (const role of ROLES) {
          const ds = (data as DataSourceListItem[] | undefined)?.find((x) => x.id === d[role]);
          if (!ds || ds.id === endOf(formula, role)?.dataSourceId) continue;
          const object = await firstObject(role, ds, d.uploadId);
          const schema = connectorFor(ds.system).additionalSettings[role];
          let settings = baseSettings(ds.system, role, object);
          if (schema) {
            const checked = validateSettings(schema, { ...settings, ...d.needed?.[role] });
            if (!checked.success) throw new StepRefused(Object.fromEntries(Object.entries(checked.errors).map(([k, m]) => [`${role}.settings.${k}`, m])));
            settings = checked.values;
          }
          body[role] = { dataSourceId: ds.id, object, settings };
          // a file-upload formula's sample is its upload
          if (role === 'source') body.sampleUploadId = ds.system === 'file-upload' ? object : null;
        }
        return f.update(formula.id, confirmWipe ? { ...body, confirmWipe: true } : body, { silent: true });
      },
    },
    scheduling: {
      async load(formula) {
        // a file-upload formula runs per upload: it has no schedule to read
        if (formula.usesFileUpload) return { data: null, saved: null, draft: null };
        const saved = await f.getPart(formula.id, 'schedule', { silent: true });
        // a schedule not saved yet is a change as soon as the step opens
        return { data: saved, saved: saved ? scheduleOf(scheduleFormOf(saved)) : null, draft: scheduleOf(scheduleFormOf(saved)) };
      },
      async save(formula, draft) {
        const schedule = v.parse(ScheduleSchema, draft);
        await f.putPart(formula.id, 'schedule', schedule, { silent: true });
        // the formula's list of parts now holds the schedule
        return f.get(formula.id, { silent: true }).catch(() => undefined);
      },
    },
  };
}

export const STEP_IO = stepIO({ formulas, integrations });

/** Whether the step loads and saves through a step editor. */
export const hasStepEditor = (step: WizardStep) => step in STEP_IO;
