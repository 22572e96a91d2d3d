/**
 * When a formula runs (SPEC.md section 9's schedule): continuously, or daily or weekly at a
 * wall-clock time in an IANA time zone; and the instants a run-once date range covers.
 *
 * Time zones are read with Intl.DateTimeFormat alone, so the browser and the server agree without
 * a time-zone library. Offsets are whole seconds, as the zone database has them.
 *
 * Daylight saving:
 * - A time that does not exist that day (it falls in the gap when clocks go forward, 02:30 in
 *   New York on the second Sunday of March) runs at the first instant after the gap: the moment
 *   the clocks jump, 03:00 on the new wall clock. So the day still has its run, as soon as the
 *   time it asked for has passed.
 * - A time that occurs twice (clocks go back) runs once, at its first occurrence.
 * - The same rule gives a day's first instant when midnight falls in a gap.
 */
import { CONTINUOUS_POLL_MINUTES, WEEKDAYS } from './constants.ts';
import type { RunOnce, Schedule } from './parts.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;

/** A date on a calendar, without a zone; month and day from 1. */
export interface CivilDate { year: number; month: number; day: number }

/** What a clock on the wall shows at an instant in a zone. */
export interface WallClock extends CivilDate { hour: number; minute: number; second: number }

// --------------------------------------------------------------------------- zone arithmetic

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** A wall clock read as if it were UTC, in milliseconds since the epoch. */
const utcMs = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number =>
  Date.UTC(year, month - 1, day, hour, minute, second);

export function wallClock(instant: Date | number, timeZone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(instant)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return {
    year: parts.year!, month: parts.month!, day: parts.day!,
    // some engines write midnight as 24 even in h23
    hour: parts.hour! % 24, minute: parts.minute!, second: parts.second!,
  };
}

/** The wall clock at an instant (whole seconds), read as UTC milliseconds. */
function wallMs(t: number, timeZone: string): number {
  const w = wallClock(t, timeZone);
  return utcMs(w.year, w.month, w.day, w.hour, w.minute, w.second);
}

/** How far the zone's wall clock is ahead of UTC at an instant, in milliseconds. */
export function zoneOffset(instant: Date | number, timeZone: string): number {
  const t = Math.floor(Number(instant) / SECOND) * SECOND;
  return wallMs(t, timeZone) - t;
}

/**
 * The instant a zone's wall clock shows a date and time: the first occurrence when it shows it
 * twice, the first instant after the gap when it never does (see the header).
 */
export function zonedInstant(date: CivilDate, hour: number, minute: number, timeZone: string): Date {
  const w = utcMs(date.year, date.month, date.day, hour, minute);
  // a zone changes its offset at most once within a day or so: the offsets either side cover it
  const offsets = [...new Set([zoneOffset(w - DAY, timeZone), zoneOffset(w, timeZone), zoneOffset(w + DAY, timeZone)])];
  const exact = offsets.map((o) => w - o).filter((t) => wallMs(t, timeZone) === w);
  if (exact.length) return new Date(Math.min(...exact));
  // in a gap: before the jump the wall clock is short of w, after it past w; find the jump
  let lo = w - Math.max(...offsets);
  let hi = w - Math.min(...offsets);
  while (hi - lo > SECOND) {
    const mid = lo + Math.floor((hi - lo) / (2 * SECOND)) * SECOND;
    if (wallMs(mid, timeZone) < w) lo = mid; else hi = mid;
  }
  return new Date(hi);
}

function addDays(date: CivilDate, days: number): CivilDate {
  const d = new Date(utcMs(date.year, date.month, date.day) + days * DAY);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** 0 for Sunday, as WEEKDAYS counts. */
const weekdayOf = (date: CivilDate): number => new Date(utcMs(date.year, date.month, date.day)).getUTCDay();

function parseTime(time: string): [hour: number, minute: number] {
  const m = /^(\d{2}):(\d{2})$/.exec(time);
  const hour = Number(m?.[1]);
  const minute = Number(m?.[2]);
  if (!m || hour > 23 || minute > 59) throw new RangeError(`Not a time (HH:MM): ${time}`);
  return [hour, minute];
}

function parseDate(text: string): CivilDate {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const date = { year: Number(m?.[1]), month: Number(m?.[2]), day: Number(m?.[3]) };
  const back = m && addDays(date, 0);
  if (!back || back.month !== date.month || back.day !== date.day) throw new RangeError(`Not a date (YYYY-MM-DD): ${text}`);
  return date;
}

// ---------------------------------------------------------------------------------- schedule

/**
 * The next run strictly after `after`: continuous collection polls every CONTINUOUS_POLL_MINUTES;
 * a daily or weekly schedule runs at the first time (on its weekday) the zone's wall clock shows
 * its time after `after`, so a run at exactly `after` is not the next one.
 */
export function nextRunAt(schedule: Schedule, after: Date): Date {
  const now = after.getTime();
  if (Number.isNaN(now)) throw new RangeError('nextRunAt needs a valid date');
  if (schedule.mode === 'continuous') return new Date(now + CONTINUOUS_POLL_MINUTES * MINUTE);
  const [hour, minute] = parseTime(schedule.time);
  const weekday = schedule.frequency === 'weekly' ? WEEKDAYS.indexOf(schedule.day) : null;
  const today = wallClock(now, schedule.timeZone);
  // past a week and a day: a zone that skipped a whole calendar day still has its run by then
  for (let k = 0; k <= 8; k++) {
    const date = addDays(today, k);
    if (weekday !== null && weekdayOf(date) !== weekday) continue;
    const run = zonedInstant(date, hour, minute, schedule.timeZone);
    if (run.getTime() > now) return run;
  }
  throw new RangeError(`No run found within 8 days of ${after.toISOString()} in ${schedule.timeZone}`);
}

/**
 * The instants a run-once range covers in a zone: `from` is the first instant of its start date,
 * `to` the first instant of the day after its end date. The window is [from, to): the end date
 * is included whole, and back-to-back ranges neither overlap nor leave a gap.
 */
export function runOnceWindow(runOnce: RunOnce, timeZone = 'UTC'): { from: Date; to: Date } {
  return {
    from: zonedInstant(parseDate(runOnce.from), 0, 0, timeZone),
    to: zonedInstant(addDays(parseDate(runOnce.to), 1), 0, 0, timeZone),
  };
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function describeSchedule(schedule: Schedule): string {
  if (schedule.mode === 'continuous') return `Every ${CONTINUOUS_POLL_MINUTES} minutes`;
  const when = schedule.frequency === 'daily' ? 'Daily' : `Weekly on ${capitalised(schedule.day)}`;
  return `${when} at ${schedule.time} (${schedule.timeZone})`;
}

/**
 * When a run starts, as the formula lists show it: 'Sat 28 Nov, 14:00' in British English. The
 * reader's locale and time zone by default, as the lists' other dates are; the run's own zone is in
 * describeSchedule.
 */
export function runTimeWords(at: Date | string, locales?: string | string[], timeZone?: string): string {
  return new Date(at).toLocaleString(locales, {
    weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', ...(timeZone ? { timeZone } : {}),
  });
}
