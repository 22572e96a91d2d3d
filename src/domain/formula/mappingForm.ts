/**
 * The mapping step's form: what the user is editing (drafts that may still be incomplete), how
 * it starts from the saved parts, the parts it saves, and the problems that keep it from saving
 * with the messages of the part schemas (SPEC.md section 5).
 */
import * as v from 'valibot';
import type { FieldInfo } from '../api/integrations.ts';
import {
  FIELD_SELECTION_REQUIRED_ABOVE, type Casing, type DateUnit, type PlaceValue, type RoundingMode, type Separator,
} from './constants.ts';
import {
  fieldSelectionProblem, FieldMappingSchema, PART_MESSAGES, SummaryFieldsSchema, TransformStepSchema, ValidationRuleSchema,
  type FieldMapping, type Gift, type Mapping, type SummaryFields, type Transform, type TransformStep, type Validation, type ValidationRule,
} from './parts.ts';
import { companionMappingProblem, GIFT_FIELD_LABELS, type Companion } from './companion.ts';
import { CUSTOM_BUCKET_PATTERN } from './statuses.ts';
import { keyKindOfField } from './matchKeys.ts';

export type MappingKind = FieldMapping['kind'];
export type RuleName = ValidationRule['rule'];

export interface FieldDraft { kind: MappingKind; source: string; value: string }

/** numbers the user is typing may be empty for a moment */
type Typed = number | '';

export type StepDraft = { id: number } & (
  | { kind: 'concatenate'; fields: string[]; separator: Separator }
  | { kind: 'shorten'; limit: Typed }
  | { kind: 'split'; splitter: string; position: Typed }
  | { kind: 'adjust-date'; amount: Typed; unit: DateUnit; direction: 'add' | 'subtract' }
  | { kind: 'round'; mode: RoundingMode; place: PlaceValue }
  | { kind: 'case'; to: Casing }
);
export type StepKind = StepDraft['kind'];

export interface RuleDraft {
  id: number;
  rule: RuleName;
  bucket: string;
  min: Typed;
  max: Typed;
  /** one-of's allowed values, one a line */
  values: string;
}

export interface MappingForm {
  /** by destination field name */
  fields: Record<string, FieldDraft>;
  steps: Record<string, StepDraft[]>;
  rules: Record<string, RuleDraft[]>;
  /** the destination fields shown for each record in the buckets */
  summary: string[];
  /** the field picker's selection; null: every field is shown (allowed up to 200 fields) */
  selected: string[] | null;
  /**
   * A gift from each row (src/domain/formula/companion.ts), where the destination object has one:
   * whether it is written, and for each gift field the source field it comes from ('' for none).
   */
  gift?: GiftDraft;
}

export interface GiftDraft { on: boolean; sources: Record<string, string> }

/** The gift draft as a saved gift part has it (off, with nothing chosen, when none is saved). */
export function giftDraftOf(saved: Gift | null, fields: readonly string[]): GiftDraft {
  const from = new Map((saved?.fields ?? []).flatMap((f) => (f.kind === 'source' ? [[f.destination, f.source] as const] : [])));
  return { on: saved !== null, sources: Object.fromEntries(fields.map((f) => [f, from.get(f) ?? ''])) };
}

/** The gift part a draft stands for (null: no gift is written), or the problem that keeps it from being saved. */
export function giftBody(draft: GiftDraft, companion: Companion, labelOf: LabelOf): { body: Gift | null; problem: string | null } {
  if (!draft.on) return { body: null, problem: null };
  const fields: Gift['fields'] = Object.entries(draft.sources).filter(([, source]) => source !== '').map(([destination, source]) => ({ destination, kind: 'source' as const, source }));
  const problem = companionMappingProblem(companion, fields, labelOf);
  return problem ? { body: null, problem } : { body: { fields }, problem: null };
}

export interface SavedParts {
  mapping: Mapping | null;
  transform: Transform | null;
  validation: Validation | null;
  summary: SummaryFields | null;
}

export interface Bodies {
  mapping: Mapping;
  transform: Transform;
  validation: Validation;
  summary: SummaryFields;
  /** the gift from each row, where the form has one: null removes it */
  gift?: Gift | null;
}

let lastId = 0;
/** keys that keep a step's or rule's inputs with it when the list is reordered */
export const newId = () => ++lastId;

export const STEP_LABELS: Record<StepKind, string> = {
  concatenate: 'Concatenate',
  shorten: 'Shorten',
  split: 'Split',
  'adjust-date': 'Adjust date',
  round: 'Round',
  case: 'Change case',
};

/**
 * A new step with settings that work at once: a concatenation starts with the field's source; a
 * change of case writes an e-mail field in lower case (addresses are compared so), any other in
 * title case.
 */
export function newStep(kind: StepKind, source: string, destination?: { name: string; type?: string }): StepDraft {
  const id = newId();
  switch (kind) {
    case 'concatenate': return { id, kind, fields: [source, ''], separator: 'space' };
    case 'shorten': return { id, kind, limit: 50 };
    case 'split': return { id, kind, splitter: ' ', position: 1 };
    case 'adjust-date': return { id, kind, amount: 1, unit: 'day', direction: 'add' };
    case 'round': return { id, kind, mode: 'half-up', place: 'hundredths' };
    case 'case': return { id, kind, to: destination && (destination.type === 'email' || keyKindOfField(destination.name) === 'email') ? 'lower' : 'title' };
  }
}

/** A bucket name the pattern accepts, from a field's label ('Invalid E-mail'). */
export function defaultBucket(label: string): string {
  const name = `Invalid ${label}`.replace(/[^A-Za-z0-9 _-]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 40).trim();
  return CUSTOM_BUCKET_PATTERN.test(name) ? name : 'Invalid values';
}

export const newRule = (label: string): RuleDraft => ({ id: newId(), rule: 'required', bucket: defaultBucket(label), min: '', max: '', values: '' });

// ------------------------------------------------------------------------- from saved parts

const stepDraft = (s: TransformStep): StepDraft => ({ ...s, id: newId() } as StepDraft);

const ruleDraft = (r: ValidationRule): RuleDraft => ({
  id: newId(), rule: r.rule, bucket: r.bucket,
  min: r.rule === 'length' ? r.min ?? '' : '',
  max: r.rule === 'length' ? r.max ?? '' : '',
  values: r.rule === 'one-of' ? r.values.join('\n') : '',
});

/**
 * The form as the saved parts have it; fields the destination no longer has are left out. With no
 * mapping saved yet, the suggested one (src/domain/formula/suggestedMapping.ts) fills it.
 */
export function initialForm(destination: FieldInfo[], saved: SavedParts, suggested: readonly FieldMapping[] = []): MappingForm {
  const names = new Set(destination.map((f) => f.name));
  const byName = new Map((saved.mapping?.fields ?? suggested).map((f) => [f.destination, f]));
  const group = <T, D>(items: T[], key: (t: T) => string, draft: (t: T) => D) => {
    const out: Record<string, D[]> = {};
    for (const item of items) {
      const k = key(item);
      if (names.has(k)) out[k] = [...(out[k] ?? []), draft(item)];
    }
    return out;
  };
  return {
    fields: Object.fromEntries(destination.map((f) => {
      const m = byName.get(f.name);
      return [f.name, {
        kind: m?.kind ?? 'ignored',
        source: m?.kind === 'source' ? m.source : '',
        value: m?.kind === 'defined' ? m.value : '',
      }];
    })),
    steps: Object.fromEntries((saved.transform?.fields ?? []).filter((f) => names.has(f.destination)).map((f) => [f.destination, f.steps.map(stepDraft)])),
    rules: group(saved.validation?.rules ?? [], (r) => r.destination, ruleDraft),
    summary: (saved.summary?.fields ?? []).filter((f) => names.has(f)),
    selected: saved.mapping?.selectedFields ? normalSelection(destination, saved.mapping.selectedFields)
      // a destination too big to show whole starts with the suggested fields chosen, so they are seen
      : !saved.mapping && suggested.length && destination.length > FIELD_SELECTION_REQUIRED_ABOVE ? normalSelection(destination, suggested.map((f) => f.destination))
      : null,
  };
}

/** Saved mappings of fields the destination no longer has (they are dropped on the next save). */
export const droppedFields = (destination: FieldInfo[], saved: SavedParts) => {
  const names = new Set(destination.map((f) => f.name));
  return (saved.mapping?.fields ?? []).filter((f) => f.kind !== 'ignored' && !names.has(f.destination)).map((f) => f.destination);
};

/** The form without its list keys: equal snapshots mean nothing changed. */
export const snapshot = (form: MappingForm) => JSON.stringify(form, (key, value) => (key === 'id' ? undefined : value));

// ---------------------------------------------------------------------------- the fields shown

/** The destination fields the table shows: the selection's (all when there is none, none when one is required), required ones first. */
export function shownFields(destination: FieldInfo[], selected: string[] | null): FieldInfo[] {
  if (selected === null && destination.length > FIELD_SELECTION_REQUIRED_ABOVE) return [];
  const chosen = selected === null ? null : new Set(selected);
  const shown = destination.filter((f) => !chosen || chosen.has(f.name));
  return [...shown.filter((f) => f.required), ...shown.filter((f) => !f.required)];
}

/** A selection as the form keeps it: in the destination's order, and none for "all" when none is needed. */
export function normalSelection(destination: FieldInfo[], names: Iterable<string>): string[] | null {
  const set = new Set(names);
  const selected = destination.filter((f) => set.has(f.name)).map((f) => f.name);
  return selected.length === destination.length && destination.length <= FIELD_SELECTION_REQUIRED_ABOVE ? null : selected;
}

// ----------------------------------------------------------------------------------- checking

export interface Checked<T> { body: T | null; errors: Record<string, string> }

/** valibot's issues by the input they concern ('limit', 'fields.1'; '' for the whole) */
function byPath(issues: v.BaseIssue<unknown>[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const key = (issue.path ?? []).map((p) => String(p.key)).join('.');
    errors[key] ??= issue.message;
  }
  return errors;
}

function check<T>(schema: v.GenericSchema<unknown, T>, input: unknown): Checked<T> {
  const r = v.safeParse(schema, input);
  return r.success ? { body: r.output, errors: {} } : { body: null, errors: byPath(r.issues) };
}

export function fieldBody(destination: string, d: FieldDraft): unknown {
  switch (d.kind) {
    case 'ignored': return { destination, kind: 'ignored' };
    case 'source': return { destination, kind: 'source', source: d.source };
    case 'defined': return { destination, kind: 'defined', value: d.value };
  }
}

export const checkField = (destination: string, d: FieldDraft) => check(FieldMappingSchema, fieldBody(destination, d));

export const checkStep = (d: StepDraft): Checked<TransformStep> => {
  const { id: _, ...step } = d;
  return check(TransformStepSchema, step);
};

export function ruleBody(destination: string, d: RuleDraft): unknown {
  const base = { destination, rule: d.rule, bucket: d.bucket };
  switch (d.rule) {
    case 'length': return { ...base, ...(d.min === '' ? {} : { min: d.min }), ...(d.max === '' ? {} : { max: d.max }) };
    case 'one-of': return { ...base, values: d.values.split('\n').map((x) => x.trim()).filter(Boolean) };
    default: return base;
  }
}

export const checkRule = (destination: string, d: RuleDraft) => check(ValidationRuleSchema, ruleBody(destination, d));

/** A destination field's label, for messages. */
export type LabelOf = (name: string) => string;

export interface FormCheck {
  /** the parts to save, when there is nothing to fix */
  bodies: Bodies | null;
  /** every problem, in the order of the table, each saying which field it concerns */
  problems: string[];
  selectionProblem: string | null;
}

/**
 * Checks the whole form against the part schemas. Only shown, mapped fields' transforms, rules
 * and summary flags are saved: an ignored field keeps its drafts in the form but sends nothing.
 */
export function checkForm(form: MappingForm, destination: FieldInfo[], labelOf: LabelOf, companion: Companion | null = null): FormCheck {
  const selectionProblem = fieldSelectionProblem(destination.length, form.selected);
  const shown = shownFields(destination, form.selected);
  const problems: string[] = selectionProblem ? [selectionProblem] : [];
  const fields: FieldMapping[] = [];
  const transform: Transform['fields'] = [];
  const rules: ValidationRule[] = [];
  const showing = new Set(shown);
  const ordered = destination.filter((f) => showing.has(f));

  for (const f of ordered) {
    const draft = form.fields[f.name] ?? { kind: 'ignored', source: '', value: '' };
    const field = checkField(f.name, draft);
    if (field.body) fields.push(field.body);
    else problems.push(`${labelOf(f.name)}: ${Object.values(field.errors)[0]}`);
    if (draft.kind === 'ignored') continue;

    const steps: TransformStep[] = [];
    (form.steps[f.name] ?? []).forEach((s, i) => {
      const c = checkStep(s);
      if (c.body) steps.push(c.body);
      else problems.push(`${labelOf(f.name)}, transform ${i + 1} (${STEP_LABELS[s.kind]}): ${Object.values(c.errors)[0]}`);
    });
    if (steps.length) transform.push({ destination: f.name, steps });

    (form.rules[f.name] ?? []).forEach((r, i) => {
      const c = checkRule(f.name, r);
      if (c.body) rules.push(c.body);
      else problems.push(`${labelOf(f.name)}, validation rule ${i + 1}: ${Object.values(c.errors)[0]}`);
    });
  }

  if (!selectionProblem && !ordered.some((f) => (form.fields[f.name]?.kind ?? 'ignored') !== 'ignored')) {
    problems.unshift(PART_MESSAGES.nothingMapped);
  }

  const mapped = new Set(fields.filter((f) => f.kind !== 'ignored').map((f) => f.destination));
  const summary = check(SummaryFieldsSchema, { fields: ordered.filter((f) => mapped.has(f.name) && form.summary.includes(f.name)).map((f) => f.name) });
  if (!summary.body) problems.push(Object.values(summary.errors)[0]!);

  const gift = form.gift && companion ? giftBody(form.gift, companion, (n) => GIFT_FIELD_LABELS[n] ?? n) : null;
  if (gift?.problem) problems.push(`Gift from each row: ${gift.problem}`);

  if (problems.length || !summary.body) return { bodies: null, problems, selectionProblem };
  return {
    bodies: {
      mapping: form.selected === null ? { fields } : { fields, selectedFields: form.selected },
      transform: { fields: transform },
      validation: { rules },
      summary: summary.body,
      ...(gift ? { gift: gift.body } : {}),
    },
    problems,
    selectionProblem,
  };
}

/**
 * What the preview runs: the shown, mapped fields with the steps that are complete so far. A field
 * whose mapping or a step is not yet complete shows that step's message instead of a value.
 */
export function previewParts(form: MappingForm, shown: FieldInfo[]) {
  const fields: FieldMapping[] = [];
  const transform: Transform['fields'] = [];
  const rules: ValidationRule[] = [];
  const incomplete: Record<string, string> = {};
  for (const f of shown) {
    const draft = form.fields[f.name];
    if (!draft || draft.kind === 'ignored') continue;
    const field = checkField(f.name, draft);
    if (!field.body) { incomplete[f.name] = Object.values(field.errors)[0]!; continue; }
    fields.push(field.body);
    const checked = (form.steps[f.name] ?? []).map(checkStep);
    const bad = checked.find((c) => !c.body);
    if (bad) incomplete[f.name] = Object.values(bad.errors)[0]!;
    else if (checked.length) transform.push({ destination: f.name, steps: checked.map((c) => c.body!) });
    for (const r of form.rules[f.name] ?? []) {
      const c = checkRule(f.name, r);
      if (c.body) rules.push(c.body);
    }
  }
  return { mapping: { fields }, transform: { fields: transform }, validation: { rules }, incomplete };
}
