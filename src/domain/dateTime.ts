/**
 * Dates and date-times the API takes, checked by parsing them rather than by their pattern: a real
 * calendar day (no 30 February), a real time of day, an offset PostgreSQL takes (at most 15:59 from
 * UTC), and a year both PostgreSQL and JavaScript read as written: 0001 to 9999, also once moved to
 * UTC (PostgreSQL has no year 0, which JavaScript calls 1 BC). What passes is stored as sent; what
 * does not is a 400 naming the field's rule, never a database error.
 *
 * Every date a request carries goes through `DateText` or `isDate` here; page cursors through
 * src/domain/cursor.ts, which parses its dates here too.
 */
import * as v from 'valibot';

export const MIN_YEAR = 1;
export const MAX_YEAR = 9999;

export const DATE_MESSAGES = {
  dateTime: 'Dates must be ISO date-times, such as 2026-01-31T00:00:00Z',
  day: 'Enter a date as YYYY-MM-DD',
} as const;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** The instant of a wall-clock time in UTC; setUTCFullYear, since Date.UTC reads years 0-99 as 19xx. */
function utc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date {
  const at = new Date(0);
  at.setUTCFullYear(y, mo - 1, d);
  at.setUTCHours(h, mi, s, ms);
  return at;
}

const realDay = (y: number, mo: number, d: number) => {
  if (y < MIN_YEAR || y > MAX_YEAR || mo < 1 || mo > 12 || d < 1) return false;
  const at = utc(y, mo, d);
  return at.getUTCMonth() === mo - 1 && at.getUTCDate() === d;
};

/** Whether an instant's year in UTC is one PostgreSQL and JavaScript both write as four digits. */
export const isStorableInstant = (at: Date) => !Number.isNaN(at.getTime()) && at.getUTCFullYear() >= MIN_YEAR && at.getUTCFullYear() <= MAX_YEAR;

/** A calendar day (YYYY-MM-DD) as its midnight in UTC; null for anything else, a 30 February included. */
export function parseDay(text: string): Date | null {
  const m = DAY.exec(text);
  if (!m) return null;
  const [y, mo, d] = m.slice(1).map(Number) as [number, number, number];
  return realDay(y, mo, d) ? utc(y, mo, d) : null;
}

/**
 * An ISO 8601 date-time with its offset (Z, +hh, +hhmm or +hh:mm), as PostgreSQL also writes it
 * (a space for the T), as a Date; null for anything else.
 */
export function parseDateTime(text: string): Date | null {
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi] = m.slice(1, 6).map(Number) as [number, number, number, number, number];
  const s = Number(m[6] ?? 0);
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  if (!realDay(y, mo, d) || h > 23 || mi > 59 || s > 59) return null;
  let offset = 0;
  if (m[8]!.toUpperCase() !== 'Z') {
    const [oh, om] = [Number(m[8]!.slice(1, 3)), Number(m[8]!.replace(':', '').slice(3, 5) || 0)];
    if (oh > 15 || om > 59) return null;
    offset = (m[8]![0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const at = new Date(utc(y, mo, d, h, mi, s, ms).getTime() - offset * 60_000);
  return isStorableInstant(at) ? at : null;
}

/** Which forms a field takes: a day, a date-time with its offset, or either. */
export type DateForm = 'day' | 'date-time' | 'day or date-time';

export function parseDate(text: string, form: DateForm): Date | null {
  if (form === 'day') return parseDay(text);
  if (form === 'date-time') return parseDateTime(text);
  return parseDay(text) ?? parseDateTime(text);
}

/** The check of a date field, for pipes that start from their own string schema. */
export const isDate = (form: DateForm, message: string) => v.check((text: string) => parseDate(text, form) !== null, message);

/** A date field as text: refused unless it parses (parseDate); the text as sent is kept. */
export const DateText = (form: DateForm, message: string = form === 'day' ? DATE_MESSAGES.day : DATE_MESSAGES.dateTime) =>
  v.pipe(v.string(message), isDate(form, message));
