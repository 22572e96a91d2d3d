/**
 * The transforms of SPEC.md section 5, as the engine runs them and the mapping preview shows them:
 * one function per step, and `transformRecord`, which gives each mapped destination field its
 * value (a source field's or a defined one) and applies that field's steps in order.
 *
 * Nothing here throws on data: a value a step cannot work with becomes an error for that field.
 * Nothing depends on the machine's time zone or locale, so the browser's preview and the server's
 * engine give the same answer for the same row.
 *
 * Semantics (the choices SPEC.md leaves open):
 * - Empty values (null, missing, or text of only spaces for round and adjust date) pass through
 *   every step unchanged; they are not incompatible data. A required rule is what refuses them.
 * - Concatenate reads the named source fields from the raw row (not the field's current value),
 *   trims each and skips empty ones, so there is never a doubled or dangling separator.
 * - Shorten and lengths count user-perceived characters (grapheme clusters): an emoji, a flag
 *   or a letter with its accent is one character and is never cut in half.
 * - Split takes the 1-based part between splitters, trimmed; a position past the end gives ''.
 * - Adjust date works on the date and time as written. A date (YYYY-MM-DD) stays a date; hours and
 *   minutes move it as its midnight would move, and the result is its day. A date-time keeps its
 *   own offset (Z, +01:00, or none): the offset is a fixed number, not a zone, so no daylight-saving
 *   rule is applied and a day is always 24 hours. Months and years are calendar months and years
 *   whose day is clamped to the month's end (31 January + 1 month = 28 or 29 February).
 * - Round works on the decimal digits (numbers as JavaScript prints them, numeric text with a '.'
 *   decimal point), never on binary floating point: 1.005 half up to hundredths is 1.01. 'up' is
 *   away from zero, 'down' towards zero, 'half up' to the nearest with ties away from zero (as
 *   spreadsheets' ROUNDUP, ROUNDDOWN and ROUND). A number stays a number; numeric text becomes
 *   text with exactly the place's decimals ('10.5' to hundredths is '10.50').
 * - Case is locale-independent (the same everywhere): title case starts each word with a capital,
 *   a word being letters and digits; after a one-letter prefix and an apostrophe a new capital
 *   starts (O'Neil, D'Angelo) but not otherwise (Don't). Sentence case lowers everything and
 *   capitalises the first letter of the text and of each sentence after '.', '!' or '?'.
 */
import { PLACE_VALUES, SEPARATORS, type Casing, type DateUnit, type PlaceValue, type RoundingMode } from './constants.ts';
import type { Mapping, Transform, TransformStep } from './parts.ts';

/** A field's value on its way to the destination. */
export type FieldValue = string | number | null;

export type StepResult = { ok: true; value: FieldValue } | { ok: false; error: string };

/** A record's destination values, and the fields whose transforms failed (with why). */
export interface TransformedRecord {
  values: Record<string, FieldValue>;
  errors: Record<string, string>;
}

/** Why a step could not use a value; each names what it needed and what the value is. */
export const TRANSFORM_MESSAGES = {
  roundNeedsNumber: (what: string) => `Round needs a number, not ${what}`,
  adjustNeedsDate: (what: string) => `Adjust date needs a date (YYYY-MM-DD) or an ISO date-time, not ${what}`,
  notACalendarDate: (value: string) => `${value} is not a calendar date`,
  dateOutOfRange: 'The adjusted date falls outside the years 0000 to 9999',
} as const;

// ---------------------------------------------------------------------------------- values

/** A raw source value as a field value: text and finite numbers as they are, everything else as text. */
export function toFieldValue(raw: unknown): FieldValue {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : String(raw);
  if (typeof raw === 'boolean' || typeof raw === 'bigint') return String(raw);
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? null : raw.toISOString();
  try {
    return JSON.stringify(raw) ?? null;
  } catch {
    return String(raw);
  }
}

export const valueText = (value: FieldValue): string => (value === null ? '' : typeof value === 'number' ? plainNumber(value) : value);

export const isEmpty = (value: FieldValue): boolean => value === null || value === '';

/** A row's own value of a field (never one of Object's, for a field called 'constructor'). */
const own = (row: Record<string, unknown>, field: string): unknown => (Object.hasOwn(row, field) ? row[field] : undefined);

const describe = (value: FieldValue): string => (typeof value === 'number' ? 'a number' : 'text');

// ------------------------------------------------------------------------------- characters

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** The user-perceived characters of a text. */
export const graphemes = (text: string): string[] => Array.from(segmenter.segment(text), (s) => s.segment);

export const graphemeLength = (text: string): number => {
  let n = 0;
  for (const _ of segmenter.segment(text)) n++;
  return n;
};

// ------------------------------------------------------------------------------ the steps

/** Applies one step to a value; `row` is the raw source row (concatenate reads its fields there). */
export function applyTransform(step: TransformStep, value: FieldValue, row: Record<string, unknown>): StepResult {
  switch (step.kind) {
    case 'concatenate': return { ok: true, value: concatenate(step.fields, step.separator, row) };
    case 'shorten': return { ok: true, value: isEmpty(value) ? value : shorten(valueText(value), step.limit) };
    case 'split': return { ok: true, value: isEmpty(value) ? value : split(valueText(value), step.splitter, step.position) };
    case 'adjust-date': return adjustDate(value, step.direction === 'add' ? step.amount : -step.amount, step.unit);
    case 'round': return round(value, step.mode, step.place);
    case 'case': return { ok: true, value: isEmpty(value) ? value : changeCase(valueText(value), step.to) };
  }
}

export function concatenate(fields: readonly string[], separator: keyof typeof SEPARATORS, row: Record<string, unknown>): string {
  return fields
    .map((f) => valueText(toFieldValue(own(row, f))).trim())
    .filter((t) => t !== '')
    .join(SEPARATORS[separator]);
}

export function shorten(text: string, limit: number): string {
  const parts = graphemes(text);
  return parts.length <= limit ? text : parts.slice(0, Math.max(0, limit)).join('');
}

export function split(text: string, splitter: string, position: number): string {
  if (splitter === '') return text;
  return text.split(splitter)[position - 1]?.trim() ?? '';
}

// ------------------------------------------------------------------------------------- case

const WORD_CHAR = /[\p{L}\p{N}]/u;
const MARK = /\p{M}/u;
const APOSTROPHES = new Set(["'", '\u2019']);
const SENTENCE_END = new Set(['.', '!', '?']);

export function changeCase(text: string, to: Casing): string {
  switch (to) {
    case 'upper': return text.toUpperCase();
    case 'lower': return text.toLowerCase();
    case 'title': return titleCase(text);
    case 'sentence': return sentenceCase(text);
  }
}

function titleCase(text: string): string {
  let out = '';
  let inWord = false;
  /** letters of the word so far, and whether an apostrophe came right after its first one */
  let wordLength = 0;
  let afterPrefixApostrophe = false;
  for (const c of text.toLowerCase()) {
    if (MARK.test(c)) { out += c; continue; }
    if (WORD_CHAR.test(c)) {
      out += !inWord || afterPrefixApostrophe ? c.toUpperCase() : c;
      inWord = true;
      wordLength = afterPrefixApostrophe ? 1 : wordLength + 1;
      afterPrefixApostrophe = false;
    } else if (inWord && APOSTROPHES.has(c)) {
      out += c;
      afterPrefixApostrophe = wordLength === 1;
      if (!afterPrefixApostrophe) wordLength++;
    } else {
      out += c;
      inWord = false;
      wordLength = 0;
      afterPrefixApostrophe = false;
    }
  }
  return out;
}

function sentenceCase(text: string): string {
  let out = '';
  let capitalise = true;
  let sawEnd = false;
  for (const c of text.toLowerCase()) {
    if (WORD_CHAR.test(c)) {
      out += capitalise ? c.toUpperCase() : c;
      capitalise = false;
      sawEnd = false;
    } else {
      out += c;
      if (SENTENCE_END.has(c)) sawEnd = true;
      else if (/\s/u.test(c) && sawEnd) capitalise = true;
      else if (!MARK.test(c) && !/\s/u.test(c)) sawEnd = false;
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------ round

const NUMERIC_TEXT = /^([+-])?(\d*)(?:\.(\d*))?$/;

/** A number's decimal digits as JavaScript prints it (the shortest text that reads back as it), without exponent. */
export function plainNumber(n: number): string {
  const s = String(n);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const [, sign, lead, rest = '', exp] = m;
  const digits = lead! + rest;
  const point = 1 + Number(exp);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

interface Decimal { negative: boolean; int: string; frac: string }

function decimalOf(value: string | number): Decimal | null {
  const text = typeof value === 'number' ? plainNumber(value) : value.trim();
  const m = NUMERIC_TEXT.exec(text);
  if (!m || (m[2] === '' && !m[3])) return null;
  return { negative: m[1] === '-', int: m[2] || '0', frac: m[3] ?? '' };
}

export function round(value: FieldValue, mode: RoundingMode, place: PlaceValue): StepResult {
  if (value === null || (typeof value === 'string' && value.trim() === '')) return { ok: true, value };
  if (typeof value === 'number' && !Number.isFinite(value)) return { ok: false, error: TRANSFORM_MESSAGES.roundNeedsNumber('a number that is not finite') };
  const d = decimalOf(value);
  if (!d) return { ok: false, error: TRANSFORM_MESSAGES.roundNeedsNumber(describe(value)) };
  const text = roundDecimal(d, mode, PLACE_VALUES[place]);
  return { ok: true, value: typeof value === 'number' ? Number(text) : text };
}

/** Rounds on scaled integers (BigInt), so no binary fraction ever decides a digit. */
function roundDecimal({ negative, int, frac }: Decimal, mode: RoundingMode, decimals: number): string {
  let kept = BigInt(int + frac.padEnd(decimals, '0').slice(0, decimals));
  const rest = frac.slice(decimals);
  const more = mode === 'up' ? /[1-9]/.test(rest) : mode === 'half-up' ? (rest[0] ?? '0') >= '5' : false;
  if (more) kept += 1n;
  const digits = kept.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const text = decimals ? `${whole}.${digits.slice(-decimals)}` : whole;
  return negative && kept !== 0n ? `-${text}` : text;
}

// ------------------------------------------------------------------------------ adjust date

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})([Tt ])(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
const MINUTE = 60_000;
const DAY = 86_400_000;
const UNIT_MS: Partial<Record<DateUnit, number>> = { week: 7 * DAY, day: DAY, hour: 60 * MINUTE, minute: MINUTE };

const daysInMonth = (year: number, month: number) => {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
};

/** The wall-clock fields as if they were UTC (setUTCFullYear, since Date.UTC reads years 0-99 as 19xx). */
function wallClock(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  return date.getTime();
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

export function adjustDate(value: FieldValue, amount: number, unit: DateUnit): StepResult {
  if (value === null || (typeof value === 'string' && value.trim() === '')) return { ok: true, value };
  if (typeof value !== 'string') return { ok: false, error: TRANSFORM_MESSAGES.adjustNeedsDate(describe(value)) };
  const text = value.trim();
  const m = DATE_ONLY.exec(text) ?? DATE_TIME.exec(text);
  if (!m) return { ok: false, error: TRANSFORM_MESSAGES.adjustNeedsDate('text') };
  const dateOnly = m.length === 4;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [h, mi, s] = dateOnly ? [0, 0, 0] : [Number(m[5]), Number(m[6]), Number(m[7] ?? 0)];
  const offset = dateOnly ? undefined : m[9];
  const offsetOk = !offset || /^[Zz]$/.test(offset) || (Number(offset.slice(1, 3)) <= 23 && (offset.length === 3 || Number(offset.slice(-2)) <= 59));
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59 || !offsetOk) {
    return { ok: false, error: TRANSFORM_MESSAGES.notACalendarDate(text) };
  }

  let t: number;
  if (unit === 'month' || unit === 'year') {
    const months = y * 12 + (mo - 1) + amount * (unit === 'year' ? 12 : 1);
    const ny = Math.floor(months / 12);
    const nmo = months - ny * 12 + 1;
    t = wallClock(ny, nmo, Math.min(d, daysInMonth(ny, nmo)), h, mi, s);
  } else {
    t = wallClock(y, mo, d, h, mi, s) + amount * UNIT_MS[unit]!;
  }
  const r = new Date(t);
  const year = r.getUTCFullYear();
  if (!Number.isFinite(t) || year < 0 || year > 9999) return { ok: false, error: TRANSFORM_MESSAGES.dateOutOfRange };
  const date = `${pad(year, 4)}-${pad(r.getUTCMonth() + 1)}-${pad(r.getUTCDate())}`;
  if (dateOnly) return { ok: true, value: date };
  // the time as written: seconds (and their fraction) only when the value had them
  const seconds = m[7] === undefined ? '' : `:${pad(r.getUTCSeconds())}${m[8] ?? ''}`;
  return { ok: true, value: `${date}${m[4]}${pad(r.getUTCHours())}:${pad(r.getUTCMinutes())}${seconds}${offset ?? ''}` };
}

// ------------------------------------------------------------------------------- a record

/** The steps of each destination field (the first list, should one be given twice). */
export function stepsByDestination(transform: Pick<Transform, 'fields'> | null | undefined): Map<string, TransformStep[]> {
  const steps = new Map<string, TransformStep[]>();
  for (const f of transform?.fields ?? []) if (!steps.has(f.destination)) steps.set(f.destination, f.steps);
  return steps;
}

/** One field's value before its steps: the source field's, or the defined value. */
export function mappedValue(field: Mapping['fields'][number], row: Record<string, unknown>): FieldValue {
  switch (field.kind) {
    case 'ignored': return null;
    case 'source': return toFieldValue(own(row, field.source));
    case 'defined': return field.value;
  }
}

/** Applies steps in order; the first that fails stops the field with its error. */
export function applySteps(steps: readonly TransformStep[], value: FieldValue, row: Record<string, unknown>): StepResult {
  let current = value;
  for (const step of steps) {
    const result = applyTransform(step, current, row);
    if (!result.ok) return result;
    current = result.value;
  }
  return { ok: true, value: current };
}

/**
 * A raw source row as the destination receives it: every mapped field (ignored ones are left out)
 * with its value after its transforms, and the fields whose transforms failed, with the message.
 */
export function transformRecord(mapping: Pick<Mapping, 'fields'>, transform: Pick<Transform, 'fields'> | null | undefined, row: Record<string, unknown>): TransformedRecord {
  const steps = stepsByDestination(transform);
  // Maps, then fromEntries: a destination field called '__proto__' stays a field
  const values = new Map<string, FieldValue>();
  const errors = new Map<string, string>();
  for (const field of mapping.fields) {
    if (field.kind === 'ignored' || values.has(field.destination) || errors.has(field.destination)) continue;
    const result = applySteps(steps.get(field.destination) ?? [], mappedValue(field, row), row);
    if (result.ok) values.set(field.destination, result.value);
    else errors.set(field.destination, result.error);
  }
  return { values: Object.fromEntries(values), errors: Object.fromEntries(errors) };
}
