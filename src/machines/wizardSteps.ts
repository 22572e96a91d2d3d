/**
 * What each wizard step loads and saves (SPEC.md section 2), for the step editor
 * (./stepEditor.ts): `load` answers the data the step's screen shows and the saved copy of its
 * draft; `save` stores a draft and answers the formula as the server now has it, when it changed.
 * A step without an entry has nothing of its own to load or save.
 */
import * as v from 'valibot';
import type { FieldInfo } from '../domain/api/integrations.ts';
import type { FormulaSample } from '../domain/api/formulas.ts';
import { connectorFor } from '../domain/connectors/catalogue.ts';
import { REFUSED_MESSAGES, requestFailure } from '../domain/errors.ts';
import { checkForm, giftDraftOf, initialForm, type MappingForm, type SavedParts } from '../domain/formula/mappingForm.ts';
import { companionOf, GIFT_FIELD_LABELS, type Companion } from '../domain/formula/companion.ts';
import { suggestedMapping } from '../domain/formula/suggestedMapping.ts';
import { matchingBody, matchingForm } from '../domain/formula/matchingForm.ts';
import { AutosendSchema, FORMULA_PART_NAMES, MatchingSchema, type FormulaPartBody, type FormulaPartName, PART_PROBLEM_MESSAGES, RoutingSchema, type CustomRouting, type DefaultRouting, type Matching } from '../domain/formula/parts.ts';
import { customRoutingBodies, customRoutingForm, DEFAULT_CUSTOM_ROUTING } from '../domain/formula/customRoutingForm.ts';
import { DEFAULT_TRIAGE, triageBodies, triageForm } from '../domain/formula/triageForm.ts';
import { recommendedMatching, type FieldRef } from '../domain/formula/recommendedScenarios.ts';
import { defaultValues, formFields, validateSettings, type SettingsValues } from '../domain/connectors/fields.ts';
import { additionalSettingsFor, type DataSourceListItem, type SystemId } from '../domain/connectors/types.ts';
import { baseSettings, ROLES, withObject, type Role } from '../domain/formula/ends.ts';
import { FormulaNameSchema, type UpdateFormula } from '../domain/formula/formula.ts';
import type { WizardStep } from '../domain/formula/wizard.ts';
import { RunOnceSchema, ScheduleSchema, type Schedule } from '../domain/formula/parts.ts';
import { formulas, type FormulaView } from '../services/formulas.ts';
import type { RequestOptions } from '../services/gateway.ts';
import { integrations } from '../services/integrations.ts';
import { runOnce } from '../services/runOnce.ts';

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

/** The refusal of an activation: the key under which it names what the formula misses. */
export const MISSING = 'missing';

/**
 * The calls the steps make (their loads and saves, the object pickers, the report check and the
 * dry run); tests hand in fakes of the same shape.
 */
export interface StepCalls {
  formulas: Pick<typeof formulas, 'get' | 'getPart' | 'putPart' | 'deletePart' | 'update' | 'sample' | 'activate' | 'dryRun'> & { runOnce: typeof runOnce };
  integrations: Pick<typeof integrations, 'list' | 'objects' | 'refreshObjects' | 'fields' | 'checkSalesforceReport'>;
}

export const OBJECTS_FORBIDDEN_MESSAGE = 'Reading objects from the system needs permission to edit data sources.';
export const OBJECTS_UNREACHABLE_MESSAGE = 'The system could not be reached.';

/**
 * The object picker of one end of the formula (the formula type step's): its data source's kept
 * list, or the connector's standard objects when no list can be read, with the wizard's messages.
 */
export const objectPickerInputOf = (end: { dataSourceId: string; system: SystemId; objectsKept?: boolean }, mayReadObjects = true) => ({
  dataSourceId: end.dataSourceId, standard: connectorFor(end.system).objects,
  forbiddenMessage: OBJECTS_FORBIDDEN_MESSAGE, failedMessage: OBJECTS_UNREACHABLE_MESSAGE,
  // no list kept, and the user may not read one from the system: the server would refuse (403)
  refused: end.objectsKept === false && !mayReadObjects,
});

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

/** A run once range as the scheduling step holds it: asked for (on) or not. */
export interface RunOnceForm { on: boolean; from: string; to: string }

/** The scheduling step's draft: the schedule, with the run once range while one is asked for (saved as one run over it). */
export const schedulingDraftOf = (f: ScheduleForm, runOnce: RunOnceForm): unknown =>
  (runOnce.on ? { ...(scheduleOf(f) as object), runOnce: { from: runOnce.from, to: runOnce.to } } : scheduleOf(f));

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

/** An end's settings schema in its role, if its system has settings there. */
export function settingsSchemaOf(formula: FormulaView, role: Role) {
  const end = endOf(formula, role);
  return end ? additionalSettingsFor(connectorFor(end.system), role, end.object) : undefined;
}

/** An end's settings as saved, over the schema's defaults, with the end's object where the settings name it. */
export function savedSettingsOf(formula: FormulaView, role: Role): SettingsValues {
  const end = endOf(formula, role);
  const schema = settingsSchemaOf(formula, role);
  return schema && end ? withObject(end.system, role, { ...defaultValues(schema), ...end.settings }, end.object) : {};
}

/** Whether settings differ from those saved: a value left blank is one not given. */
export const settingsDiffer = (a: SettingsValues, b: SettingsValues) => Object.keys({ ...a, ...b }).some((k) => (a[k] ?? '') !== (b[k] ?? ''));

/** The formula type step's draft: the source's object (or file pattern), the destination's, and a Salesforce report id. */
export interface FormulaTypeDraft { source: string; destination: string; report: string }

export const formulaTypeDraftOf = (formula: FormulaView): FormulaTypeDraft => ({
  source: formula.sourceDataSource?.object ?? '',
  destination: formula.firstDestinationDataSource?.object ?? '',
  report: formula.sourceDataSource?.system === 'salesforce' ? formula.sourceDataSource.settings.reportId ?? '' : '',
});

/** The draft as the formula has it saved. */
export const dataSourcesDraftOf = (formula: FormulaView): DataSourcesDraft => ({
  name: formula.name ?? '',
  source: formula.sourceDataSource?.dataSourceId ?? '',
  destination: formula.firstDestinationDataSource?.dataSourceId ?? '',
});

/**
 * The mapping step's load messages, which name the service that failed (SPEC.md section 8): load
 * errors name the failing service as temporarily down, or say a configuration could not be retrieved.
 */
export const LOAD_MESSAGES = {
  title: 'Error loading Mapping',
  fields: 'Failed to fetch fields.',
  integrations: 'Integrations are temporarily down.',
  source: 'Source metadata is temporarily down.',
  destination: 'Destination metadata is temporarily down.',
  mapping: 'The mapping configuration could not be retrieved.',
  transform: 'The transform configuration could not be retrieved.',
  validation: 'The validation rules could not be retrieved.',
  summary: 'The summary fields could not be retrieved.',
  sample: 'The sample rows could not be loaded.',
  gift: 'The gift from each row could not be retrieved.',
  /** a refusal, not an outage: reading a data source's fields needs datasource view */
  fieldsRefused: REFUSED_MESSAGES.sourceFields,
} as const;

/** A field of the source, as the selects offer it. */
export interface SourceField { name: string; label: string }

/** What the mapping step reads: both ends' fields, the saved parts, the sample (or that it could not be read). */
export interface MappingData {
  /** the destination fields a mapping may fill: not those it sets itself (FieldInfo.readOnly) */
  destination: FieldInfo[];
  /** the fields it sets itself, which a saved mapping may still name (they are left out on saving) */
  readOnly: FieldInfo[];
  source: SourceField[];
  saved: SavedParts;
  sample: FormulaSample | null;
  /** how many fields the form opened with mapped from source fields of the same names */
  suggested: number;
  /** the record the destination object may also take from each row (a constituent's gift), or null */
  companion: Companion | null;
  /** whether the formula has a gift part saved (removed when the step turns it off) */
  giftSaved?: boolean;
}

/** What the review shows: the parts the formula has, its objects' labels by `{dataSourceId}/{object}`, and its destination and source fields' labels by name. */
export interface ReviewData {
  parts: Partial<Record<FormulaPartName, unknown>>;
  objectLabels: Record<string, string>;
  fieldLabels: Record<string, string>;
  /** a connector source's fields by the names its system gives them (Mailchimp's FNAME is First Name) */
  sourceFieldLabels?: Record<string, string>;
}

/** The parts the formula has, as the server has it now (a step may have saved one since). */
async function readFormulaParts(f: Pick<StepCalls['formulas'], 'get' | 'getPart'>, formula: FormulaView): Promise<ReviewData['parts']> {
  const fresh = await f.get(formula.id, { silent: true }).catch(() => formula);
  const names = FORMULA_PART_NAMES.filter((p) => fresh.parts.includes(p));
  return Object.fromEntries(await Promise.all(names.map(async (p) => [p, await f.getPart(formula.id, p, { silent: true })] as const)));
}

const FILE_SYSTEMS = new Set(['file-upload', 'flat-file']);

/** The labels of the objects of one end's data source; none when they cannot be read (the summary shows names). */
async function objectLabelsOf(i: Pick<StepCalls['integrations'], 'objects'>, dataSourceId: string): Promise<Record<string, string>> {
  return i.objects(dataSourceId, { silent: true })
    .then((list) => Object.fromEntries(list.objects.map((o) => [`${dataSourceId}/${o.name}`, o.label])), () => ({}));
}

/** The labels of an end's fields; none when they cannot be read (the summary shows names). */
async function fieldLabelsOf(i: Partial<Pick<StepCalls['integrations'], 'fields'>>, end: FormulaView['firstDestinationDataSource']): Promise<Record<string, string>> {
  if (!end || !i.fields) return {};
  const fields = i.fields;
  return Promise.resolve().then(() => fields(end.dataSourceId, end.object, { silent: true }))
    .then((list) => Object.fromEntries(list.fields.map((f) => [f.name, f.label])))
    .catch(() => ({}));
}

/**
 * The review of a formula (the review step's, the printed review's): the parts it has, its ends'
 * object labels and its destination fields' labels. Parts that cannot be read make it unread;
 * labels are a nicety (names show instead).
 */
export async function readReview(
  calls: { formulas: Pick<StepCalls['formulas'], 'get' | 'getPart'>; integrations: Pick<StepCalls['integrations'], 'objects'> & Partial<Pick<StepCalls['integrations'], 'fields'>> },
  formula: FormulaView,
): Promise<ReviewData> {
  const ends = [formula.sourceDataSource, formula.firstDestinationDataSource].filter((e) => e !== null);
  // a data source with no list kept would be read from the system, or refused (403): its connector's standard objects name them
  const labels = Promise.all(ends.map((e) => (e.objectsKept === false
    ? Object.fromEntries(connectorFor(e.system).objects.map((o) => [`${e.dataSourceId}/${o.name}`, o.label]))
    : objectLabelsOf(calls.integrations, e.dataSourceId))));
  const fieldLabels = fieldLabelsOf(calls.integrations, formula.firstDestinationDataSource);
  // a file's columns are their own labels: only a system's fields are asked for
  const source = formula.sourceDataSource;
  const sourceFieldLabels = source && !FILE_SYSTEMS.has(source.system) ? fieldLabelsOf(calls.integrations, source) : Promise.resolve({});
  let parts: ReviewData['parts'];
  try {
    parts = await readFormulaParts(calls.formulas, formula);
  } catch (err) {
    throw new StepUnread([(err as { problem?: { detail?: string } }).problem?.detail ?? 'The formula\'s parts could not be read.']);
  }
  return { parts, objectLabels: Object.assign({}, ...await labels), fieldLabels: await fieldLabels, sourceFieldLabels: await sourceFieldLabels };
}

/** A step that could not be read, each reason on a line of its detail. */
export class StepUnread extends Error {
  readonly problem: { detail: string };
  constructor(readonly reasons: string[]) {
    super('The step could not be read.');
    this.problem = { detail: reasons.join('\n') };
  }
}

/**
 * A failed fields call: refused (the person may not read it: said so, never as an outage), the
 * system behind it could not be reached (its metadata is down), or the integrations service itself
 * failed (a server error, or no answer at all).
 */
function fieldsFailure(err: unknown, role: 'source' | 'destination'): string {
  const failure = requestFailure(err, { refused: LOAD_MESSAGES.fieldsRefused });
  if (failure.kind === 'refused') return failure.message;
  if (failure.kind === 'service') return LOAD_MESSAGES.integrations;
  return LOAD_MESSAGES[role];
}

/** A failed part: refused says so; anything else, that the part could not be retrieved. */
function partFailure(err: unknown, message: string): string {
  const failure = requestFailure(err);
  return failure.kind === 'refused' ? failure.message : message;
}

const settled = <T>(p: Promise<T>) => p.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));
const silent = { silent: true } as const;

/** Whether the formula has both ends the mapping reads (the data-sources step chose them). */
export const hasMappingEnds = (formula: FormulaView) => {
  const d = formula.firstDestinationDataSource;
  const src = formula.sourceDataSource;
  return Boolean(d?.dataSourceId && d.object && (formula.usesFileUpload || (src?.dataSourceId && src.object)));
};

export interface FormulaFields {
  /** the source's fields (a file's headers for a file-upload source) */
  source: FieldRef[];
  /** the destination's fields; `searchable` marks those a search scenario can use */
  destination: FieldRef[];
}

/** SPEC.md section 8's message when a system's fields cannot be read. */
export const FIELDS_FAILED = 'Failed to fetch fields.';
export const FIELDS_REFUSED = REFUSED_MESSAGES.sourceFields;

/** A load failure with the message the step shows. */
export class StepLoadError extends Error {
  constructor(message: string, cause?: unknown) { super(message, { cause }); }
}

const isFileUpload = (formula: FormulaView) => formula.usesFileUpload || formula.sourceDataSource?.system === 'file-upload';

/** The formula's source and destination fields. */
export async function loadFormulaFields(
  calls: { formulas: Pick<StepCalls['formulas'], 'sample'>; integrations: Pick<StepCalls['integrations'], 'fields'> },
  formula: FormulaView,
  need: { source: boolean } = { source: true },
): Promise<FormulaFields> {
  const src = formula.sourceDataSource;
  const dest = formula.firstDestinationDataSource;
  const [source, destination] = await Promise.all([
    !need.source ? [] : isFileUpload(formula)
      ? calls.formulas.sample(formula.id).then((s) => s.fields.map((name) => ({ name })))
      : src ? calls.integrations.fields(src.dataSourceId, src.object).then((l) => l.fields) : [],
    dest ? calls.integrations.fields(dest.dataSourceId, dest.object).then((l) => l.fields) : [],
  ]).catch((err: unknown) => {
    // a refusal is said as one (the person may not read the data sources' fields), never as a failure to fetch
    const failure = requestFailure(err, { refused: FIELDS_REFUSED });
    throw new StepLoadError(failure.kind === 'refused' ? failure.message : FIELDS_FAILED, err);
  });
  return { source, destination };
}

/** What the matching step reads: the fields, the saved part or the recommended one, and which. */
export interface MatchingData { fields: FormulaFields; part: Matching; recommended: boolean }

/** What a routing step reads: the fields, its kind of routing part as saved (or its default), and autosend. */
export interface RoutingData<R> { fields: FormulaFields; routing: R; autosend: boolean }

/** The steps' loads and saves over these calls: every step has them, as the wizard runs an editor for whichever step is open. */
export function stepIO({ formulas: f, integrations: i }: StepCalls): Record<WizardStep, StepIO> {
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

  const calls = { formulas: f, integrations: i };

  /**
   * A part the formula lists as saved, read; one it does not list is none, and is not asked for
   * (the server would answer 404, which the browser logs). A save that writes a part answers the
   * formula read again, so the list is the server's.
   */
  const savedPart = <P extends FormulaPartName>(formula: FormulaView, part: P, o?: RequestOptions): Promise<FormulaPartBody[P] | null> =>
    (formula.parts.includes(part) ? f.getPart(formula.id, part, o) : Promise.resolve(null));

  /**
   * A routing step reads the routing and autosend parts and the fields; a routing part of the other
   * kind (saved while the custom-routing flag was otherwise) does not carry over. Its draft is the
   * two bodies, saved in order.
   */
  function routingStep<R>(
    kind: 'default' | 'custom',
    start: R,
    bodiesOf: (routing: R, autosend: boolean) => unknown,
    need: { source: boolean },
  ): StepIO {
    return {
      async load(formula) {
        const failed = PART_PROBLEM_MESSAGES['routing-get-failed'];
        try {
          const [routing, autosend, fields] = await Promise.all([
            savedPart(formula, 'routing').catch((err: unknown) => { throw new StepLoadError(failed, err); }),
            savedPart(formula, 'autosend').catch((err: unknown) => { throw new StepLoadError(PART_PROBLEM_MESSAGES['autosend-get-failed'], err); }),
            loadFormulaFields(calls, formula, need),
          ]);
          const data: RoutingData<R> = { fields, routing: routing?.kind === kind ? routing as R : start, autosend: autosend?.enabled ?? false };
          const bodies = bodiesOf(data.routing, data.autosend);
          return { data, saved: bodies, draft: bodies };
        } catch (err) {
          throw new StepUnread([err instanceof StepLoadError ? err.message : failed]);
        }
      },
      async save(formula, draft) {
        const { routing, autosend } = draft as { routing: unknown; autosend: unknown };
        await f.putPart(formula.id, 'routing', v.parse(RoutingSchema, routing));
        await f.putPart(formula.id, 'autosend', v.parse(AutosendSchema, autosend));
        // the formula's list of parts now holds them
        return f.get(formula.id, silent).catch(() => undefined);
      },
    };
  }

  /**
   * An additional-settings step reads nothing: its draft starts as the end's saved settings. A save
   * of settings left as saved sends nothing; a system whose settings name the object (Salesforce's
   * top-level object) changes the end's object with them, which the server may ask to confirm.
   */
  function additionalSettings(role: Role): StepIO {
    return {
      async load(formula) {
        const saved = savedSettingsOf(formula, role);
        return { data: null, saved, draft: saved };
      },
      async save(formula, draft, { confirmWipe }) {
        const end = endOf(formula, role);
        const schema = settingsSchemaOf(formula, role);
        const values = draft as SettingsValues;
        if (!end || !schema || !settingsDiffer(values, savedSettingsOf(formula, role))) return undefined;
        const checked = validateSettings(schema, values);
        if (!checked.success) throw new StepRefused(Object.fromEntries(Object.entries(checked.errors).map(([k, m]) => [`${role}.settings.${k}`, m])));
        const namesObject = formFields(schema).some((x) => x.key === 'object');
        const object = namesObject ? checked.values.object ?? end.object : end.object;
        const body: Partial<UpdateFormula> = { [role]: { dataSourceId: end.dataSourceId, object, settings: checked.values } };
        return f.update(formula.id, confirmWipe ? { ...body, confirmWipe: true } : body, { silent: true });
      },
    };
  }

  return {
    /**
     * The formula type step reads nothing: its draft starts as the ends' objects. It sends only an
     * end that changed (the source with its settings' object and report id; a file-upload source's
     * object is its sample); a changed object may remove parts, which the server asks to confirm.
     */
    'formula-types': {
      async load(formula) {
        const saved = formulaTypeDraftOf(formula);
        return { data: null, saved, draft: saved };
      },
      async save(formula, draft, { confirmWipe }) {
        const source = formula.sourceDataSource;
        const destination = formula.firstDestinationDataSource;
        if (!source || !destination) return undefined;
        const d = draft as FormulaTypeDraft;
        const body: Partial<UpdateFormula> = {};
        if (d.source !== source.object || d.report !== (source.settings.reportId ?? '')) {
          let settings: SettingsValues = withObject(source.system, 'source', { ...source.settings }, d.source);
          if (source.system === 'salesforce') {
            const { reportId: _dropped, ...rest } = settings;
            settings = d.report ? { ...rest, reportId: d.report } : rest;
          }
          body.source = { dataSourceId: source.dataSourceId, object: d.source, settings };
          if (source.system === 'file-upload') body.sampleUploadId = d.source;
        }
        if (d.destination !== destination.object) {
          body.destination = {
            dataSourceId: destination.dataSourceId, object: d.destination,
            settings: withObject(destination.system, 'destination', { ...destination.settings }, d.destination),
          };
        }
        // nothing changed: the step is done as it is
        if (!body.source && !body.destination) return undefined;
        return f.update(formula.id, confirmWipe ? { ...body, confirmWipe: true } : body, { silent: true });
      },
    },
    'additional-settings-source': additionalSettings('source'),
    'additional-settings-destination': additionalSettings('destination'),
    routing: routingStep<DefaultRouting>('default', DEFAULT_TRIAGE, (r, a) => triageBodies(triageForm(r, a)), { source: false }),
    'custom-routing': routingStep<CustomRouting>('custom', DEFAULT_CUSTOM_ROUTING, (r, a) => customRoutingBodies(customRoutingForm(r, a)), { source: true }),
    /**
     * The matching step reads its part and the formula's fields; a formula without a saved part
     * starts from the scenarios recommended for its destination. Its draft is the part's body.
     */
    matching: {
      async load(formula) {
        const failed = PART_PROBLEM_MESSAGES['matching-get-failed'];
        try {
          const [saved, fields] = await Promise.all([
            savedPart(formula, 'matching').catch((err: unknown) => { throw new StepLoadError(failed, err); }),
            loadFormulaFields(calls, formula),
          ]);
          const dest = formula.firstDestinationDataSource;
          const part = saved ?? recommendedMatching({ system: dest?.system ?? '', object: dest?.object ?? '', destinationFields: fields.destination, sourceFields: fields.source });
          const data: MatchingData = { fields, part, recommended: !saved && part.scenarios.length > 0 };
          const body = matchingBody(matchingForm(part));
          return { data, saved: body, draft: body };
        } catch (err) {
          throw new StepUnread([err instanceof StepLoadError ? err.message : failed]);
        }
      },
      async save(formula, draft) {
        await f.putPart(formula.id, 'matching', v.parse(MatchingSchema, draft));
        // the formula's list of parts now holds it
        return f.get(formula.id, silent).catch(() => undefined);
      },
    },
    /**
     * The mapping reads the destination's and the source's fields (a file-upload formula's source
     * fields are its sample's columns), the sample rows for the preview, and the four saved parts;
     * the form it opens with is the saved copy. It saves the four parts it edits, in order.
     */
    mapping: {
      async load(formula) {
        if (!hasMappingEnds(formula)) return { data: null, saved: null, draft: null };
        const dest = formula.firstDestinationDataSource!;
        const src = formula.sourceDataSource;
        const fromUpload = formula.usesFileUpload;
        const companion = companionOf(dest.system, dest.object);
        const [destFields, srcFields, mapping, transform, validation, summary, sample, gift] = await Promise.all([
          settled(i.fields(dest.dataSourceId, dest.object, silent)),
          !fromUpload && src ? settled(i.fields(src.dataSourceId, src.object, silent)) : null,
          settled(savedPart(formula, 'mapping', silent)),
          settled(savedPart(formula, 'transform', silent)),
          settled(savedPart(formula, 'validation', silent)),
          settled(savedPart(formula, 'summary-fields', silent)),
          settled(f.sample(formula.id, silent)),
          // a destination object with a companion (constituents: a gift) may write one from each row
          companion ? settled(savedPart(formula, 'gift', silent)) : null,
        ]);
        const down: string[] = [];
        if (!destFields.ok) down.push(fieldsFailure(destFields.error, 'destination'));
        if (srcFields && !srcFields.ok) down.push(fieldsFailure(srcFields.error, 'source'));
        // a file-upload formula's source fields are its sample's columns
        if (fromUpload && !sample.ok) down.push(partFailure(sample.error, LOAD_MESSAGES.source));
        const parts: string[] = [];
        if (!mapping.ok) parts.push(partFailure(mapping.error, LOAD_MESSAGES.mapping));
        if (!transform.ok) parts.push(partFailure(transform.error, LOAD_MESSAGES.transform));
        if (!validation.ok) parts.push(partFailure(validation.error, LOAD_MESSAGES.validation));
        if (!summary.ok) parts.push(partFailure(summary.error, LOAD_MESSAGES.summary));
        if (gift && !gift.ok) parts.push(partFailure(gift.error, LOAD_MESSAGES.gift));
        if (down.length || parts.length) throw new StepUnread([...(down.length ? [LOAD_MESSAGES.fields, ...new Set(down)] : []), ...new Set(parts)]);

        const described = destFields.ok ? destFields.value.fields : [];
        const destination = described.filter((x) => !x.readOnly);
        const readOnly = described.filter((x) => x.readOnly);
        const source: SourceField[] = fromUpload
          ? (sample.ok ? sample.value.fields : []).map((name) => ({ name, label: name }))
          : (srcFields?.ok ? srcFields.value.fields : []).map((x) => ({ name: x.name, label: x.label }));
        const saved: SavedParts = {
          mapping: mapping.ok ? mapping.value : null,
          transform: transform.ok ? transform.value : null,
          validation: validation.ok ? validation.value : null,
          summary: summary.ok ? summary.value : null,
        };
        // a formula with no mapping saved yet starts from the source fields of the same names
        const start = saved.mapping ? [] : suggestedMapping(destination, source);
        const form: MappingForm = {
          ...initialForm(destination, saved, start),
          ...(companion && gift?.ok ? { gift: giftDraftOf(gift.value, Object.keys(GIFT_FIELD_LABELS)) } : {}),
        };
        const data: MappingData = { destination, readOnly, source, saved, sample: sample.ok ? sample.value : null, suggested: start.length, companion, giftSaved: !!(gift?.ok && gift.value) };
        return { data, saved: form, draft: form };
      },
      async save(formula, draft, { data }) {
        const { destination } = data as MappingData;
        const labels = new Map(destination.map((x) => [x.name, x.label]));
        const bodies = checkForm(draft as MappingForm, destination, (n) => labels.get(n) ?? n, (data as MappingData).companion).bodies;
        // the screen shows the problems and sends no such draft
        if (!bodies) throw new StepRefused({});
        await f.putPart(formula.id, 'mapping', bodies.mapping, silent);
        await f.putPart(formula.id, 'transform', bodies.transform, silent);
        await f.putPart(formula.id, 'validation', bodies.validation, silent);
        await f.putPart(formula.id, 'summary-fields', bodies.summary, silent);
        // the gift from each row: saved when written, removed when no longer
        if (bodies.gift) await f.putPart(formula.id, 'gift', bodies.gift, silent);
        else if (bodies.gift === null && (data as MappingData).giftSaved) await f.deletePart(formula.id, 'gift', silent);
        // the formula as the server now has it (its parts; a live one now needs reprocessing)
        return f.get(formula.id, silent).catch(() => undefined);
      },
    },
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
          const schema = additionalSettingsFor(connectorFor(ds.system), role, object);
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
        const saved = await savedPart(formula, 'schedule', silent);
        // a schedule not saved yet is a change as soon as the step opens
        return { data: saved, saved: saved ? scheduleOf(scheduleFormOf(saved)) : null, draft: scheduleOf(scheduleFormOf(saved)) };
      },
      async save(formula, draft) {
        // the step's draft is the schedule, with the run once range while one is asked for
        const { runOnce, ...rest } = draft as { runOnce?: unknown };
        const schedule = v.parse(ScheduleSchema, rest);
        await f.putPart(formula.id, 'schedule', schedule, { silent: true });
        // run once is no part: it is one run over the range, asked for as the schedule is saved (a live formula's)
        if (runOnce !== undefined && !formula.isDraft) await f.runOnce(formula.id, v.parse(RunOnceSchema, runOnce), { silent: true });
        // the formula's list of parts now holds the schedule
        return f.get(formula.id, { silent: true }).catch(() => undefined);
      },
    },
    /**
     * Processing (drafts only) reads nothing; saving activates the formula. A formula not complete
     * yet is refused with what it misses (the server's names, one a line, under `missing`), which
     * the screen lists; nothing is said failed.
     */
    processing: {
      async load() {
        return { data: null, saved: null, draft: null };
      },
      async save(formula) {
        try {
          return await f.activate(formula.id, silent);
        } catch (err) {
          const p = (err as { problem?: { title?: unknown; missing?: unknown } } | null)?.problem;
          if (p?.title === 'formula-incomplete') throw new StepRefused({ [MISSING]: (Array.isArray(p.missing) ? p.missing.map(String) : []).join('\n') });
          throw err;
        }
      },
    },
    /**
     * The review reads the parts the formula has and its ends' object labels; it saves nothing
     * (its screen goes on by itself).
     */
    review: {
      async load(formula) {
        return { data: await readReview(calls, formula), saved: null, draft: null };
      },
      async save() {
        return undefined;
      },
    },
  };
}

export const STEP_IO = stepIO({ formulas: { ...formulas, runOnce }, integrations });

/** The formula's sample rows read again on their own (the mapping's preview), or null when they cannot be read. */
export const sampleReader = ({ formulas: f }: { formulas: Pick<StepCalls['formulas'], 'sample'> }) =>
  (formula: FormulaView): Promise<FormulaSample | null> => f.sample(formula.id, silent).catch(() => null);

export const READ_SAMPLE = sampleReader({ formulas });

/** Whether the step loads and saves through a step editor. */
export const hasStepEditor = (step: WizardStep) => step in STEP_IO;
