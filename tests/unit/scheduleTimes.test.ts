/**
 * When a formula runs next (src/domain/formula/scheduleTimes.ts): daily and weekly schedules in
 * zones behind, at and ahead of UTC by whole, half and three-quarter hours; strictly after the
 * given instant; the 2026 daylight-saving changes of New York, London and the Chatham Islands
 * (a missing time runs when the clocks jump, a repeated one runs once); week and year ends; and a
 * property over a year checked against the zone's wall clock as Intl reads it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTINUOUS_POLL_MINUTES, WEEKDAYS, type Weekday } from '../../src/domain/formula/constants.ts';
import type { Schedule } from '../../src/domain/formula/parts.ts';
import { describeSchedule, nextRunAt, runOnceWindow, runTimeWords, zonedInstant } from '../../src/domain/formula/scheduleTimes.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const daily = (time: string, timeZone = 'UTC'): Schedule => ({ mode: 'scheduled', frequency: 'daily', time, timeZone });
const weekly = (day: Weekday, time: string, timeZone = 'UTC'): Schedule => ({ mode: 'scheduled', frequency: 'weekly', day, time, timeZone });
const next = (schedule: Schedule, after: string) => nextRunAt(schedule, new Date(after)).toISOString();

// ------------------------------------------------------------------ the oracle: Intl, read plainly

const clocks = new Map<string, Intl.DateTimeFormat>();
/** the zone's wall clock at an instant: date, time, seconds and weekday */
function local(instant: number, timeZone: string) {
  let f = clocks.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone, hourCycle: 'h23', weekday: 'long', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    clocks.set(timeZone, f);
  }
  const p = Object.fromEntries(f.formatToParts(instant).map((x) => [x.type, x.value]));
  const date = `${p.year}-${p.month}-${p.day}`;
  const time = `${p.hour}:${p.minute}`;
  return { date, time, second: p.second!, weekday: p.weekday!.toLowerCase(), asUtc: Date.parse(`${date}T${time}:${p.second}Z`) };
}
const offset = (instant: number, timeZone: string) => local(instant, timeZone).asUtc - Math.floor(instant / 1000) * 1000;
/** the instant's wall clock also showed a moment earlier, before the clocks went back */
function repeated(instant: number, timeZone: string): boolean {
  const back = offset(instant - 3 * HOUR, timeZone) - offset(instant, timeZone);
  return back > 0 && local(instant - back, timeZone).asUtc === local(instant, timeZone).asUtc;
}

describe('continuous', () => {
  it(`polls every ${CONTINUOUS_POLL_MINUTES} minutes after the given instant`, () => {
    expect(next({ mode: 'continuous' }, '2026-03-08T06:58:30.250Z')).toBe('2026-03-08T07:03:30.250Z');
    expect(next({ mode: 'continuous' }, '2026-12-31T23:57:00.000Z')).toBe('2027-01-01T00:02:00.000Z');
  });
});

describe('daily', () => {
  it('in UTC: later today, else tomorrow; strictly after the given instant', () => {
    expect(next(daily('09:00'), '2026-03-10T08:00:00.000Z')).toBe('2026-03-10T09:00:00.000Z');
    expect(next(daily('09:00'), '2026-03-10T08:59:59.999Z')).toBe('2026-03-10T09:00:00.000Z');
    expect(next(daily('09:00'), '2026-03-10T09:00:00.000Z')).toBe('2026-03-11T09:00:00.000Z');
    expect(next(daily('09:00'), '2026-03-10T09:00:00.001Z')).toBe('2026-03-11T09:00:00.000Z');
    expect(next(daily('00:00'), '2026-03-10T00:00:00.000Z')).toBe('2026-03-11T00:00:00.000Z');
    expect(next(daily('23:59'), '2026-03-10T23:59:30.000Z')).toBe('2026-03-11T23:59:00.000Z');
  });

  it('in Europe/London: GMT in winter, BST in summer', () => {
    expect(next(daily('09:00', 'Europe/London'), '2026-01-15T08:00:00Z')).toBe('2026-01-15T09:00:00.000Z');
    expect(next(daily('09:00', 'Europe/London'), '2026-07-15T07:00:00Z')).toBe('2026-07-15T08:00:00.000Z');
    expect(next(daily('09:00', 'Europe/London'), '2026-07-15T08:00:00Z')).toBe('2026-07-16T08:00:00.000Z');
  });

  it('in America/New_York: a UTC day behind for late times', () => {
    expect(next(daily('18:30', 'America/New_York'), '2026-01-15T12:00:00Z')).toBe('2026-01-15T23:30:00.000Z');
    expect(next(daily('22:00', 'America/New_York'), '2026-07-15T12:00:00Z')).toBe('2026-07-16T02:00:00.000Z');
    expect(next(daily('22:00', 'America/New_York'), '2026-07-16T02:00:00Z')).toBe('2026-07-17T02:00:00.000Z');
  });

  it('in Asia/Kolkata (+05:30)', () => {
    expect(next(daily('09:00', 'Asia/Kolkata'), '2026-05-01T00:00:00Z')).toBe('2026-05-01T03:30:00.000Z');
    expect(next(daily('09:00', 'Asia/Kolkata'), '2026-05-01T03:30:00Z')).toBe('2026-05-02T03:30:00.000Z');
    // 02:00 there on 1 May is 20:30 UTC on 30 April
    expect(next(daily('02:00', 'Asia/Kolkata'), '2026-04-30T19:00:00Z')).toBe('2026-04-30T20:30:00.000Z');
  });

  it('in Pacific/Chatham (+12:45, +13:45 in its summer): a UTC day ahead', () => {
    expect(next(daily('09:00', 'Pacific/Chatham'), '2026-06-30T20:00:00Z')).toBe('2026-06-30T20:15:00.000Z');
    expect(next(daily('09:00', 'Pacific/Chatham'), '2026-06-30T20:15:00Z')).toBe('2026-07-01T20:15:00.000Z');
    expect(next(daily('09:00', 'Pacific/Chatham'), '2026-01-10T00:00:00Z')).toBe('2026-01-10T19:15:00.000Z');
  });

  it('across the year end, where the zone and UTC disagree on the year', () => {
    expect(next(daily('00:15'), '2026-12-31T23:30:00Z')).toBe('2027-01-01T00:15:00.000Z');
    expect(next(daily('00:15', 'Asia/Kolkata'), '2026-12-31T18:00:00Z')).toBe('2026-12-31T18:45:00.000Z');
    expect(next(daily('09:00', 'Pacific/Chatham'), '2026-12-31T12:00:00Z')).toBe('2026-12-31T19:15:00.000Z');
    expect(next(daily('23:00', 'America/New_York'), '2026-12-31T23:00:00Z')).toBe('2027-01-01T04:00:00.000Z');
    expect(next(daily('23:00', 'America/New_York'), '2027-01-01T04:00:00Z')).toBe('2027-01-02T04:00:00.000Z');
  });
});

describe('daylight saving', () => {
  it('New York, 8 March 2026: a missing time runs when the clocks jump to 03:00', () => {
    const at = (time: string, after = '2026-03-07T12:00:00Z') => next(daily(time, 'America/New_York'), after);
    expect(at('01:59')).toBe('2026-03-08T06:59:00.000Z');
    expect(at('02:00')).toBe('2026-03-08T07:00:00.000Z');
    expect(at('02:30')).toBe('2026-03-08T07:00:00.000Z');
    expect(at('02:59')).toBe('2026-03-08T07:00:00.000Z');
    expect(at('03:00')).toBe('2026-03-08T07:00:00.000Z');
    expect(at('03:30')).toBe('2026-03-08T07:30:00.000Z');
    // once run, the next is the following day's, which exists
    expect(at('02:30', '2026-03-08T07:00:00Z')).toBe('2026-03-09T06:30:00.000Z');
    // the day before, in standard time
    expect(at('02:30', '2026-03-07T00:00:00Z')).toBe('2026-03-07T07:30:00.000Z');
  });

  it('New York, 1 November 2026: a repeated time runs once, at its first occurrence', () => {
    const at = (time: string, after: string) => next(daily(time, 'America/New_York'), after);
    expect(at('01:30', '2026-11-01T00:00:00Z')).toBe('2026-11-01T05:30:00.000Z');
    expect(at('01:30', '2026-11-01T05:30:00Z')).toBe('2026-11-02T06:30:00.000Z');
    // between the two occurrences: the day has had its run
    expect(at('01:30', '2026-11-01T06:00:00Z')).toBe('2026-11-02T06:30:00.000Z');
    expect(at('01:30', '2026-11-01T06:30:00Z')).toBe('2026-11-02T06:30:00.000Z');
    expect(at('02:00', '2026-11-01T00:00:00Z')).toBe('2026-11-01T07:00:00.000Z');
    expect(at('00:59', '2026-11-01T00:00:00Z')).toBe('2026-11-01T04:59:00.000Z');
  });

  it('London, 29 March and 25 October 2026', () => {
    const at = (time: string, after: string) => next(daily(time, 'Europe/London'), after);
    expect(at('01:30', '2026-03-28T12:00:00Z')).toBe('2026-03-29T01:00:00.000Z');
    expect(at('01:00', '2026-03-28T12:00:00Z')).toBe('2026-03-29T01:00:00.000Z');
    expect(at('02:00', '2026-03-28T12:00:00Z')).toBe('2026-03-29T01:00:00.000Z');
    expect(at('01:30', '2026-03-29T01:00:00Z')).toBe('2026-03-30T00:30:00.000Z');
    expect(at('01:30', '2026-10-24T12:00:00Z')).toBe('2026-10-25T00:30:00.000Z');
    expect(at('01:30', '2026-10-25T00:30:00Z')).toBe('2026-10-26T01:30:00.000Z');
    expect(at('01:30', '2026-10-25T01:00:00Z')).toBe('2026-10-26T01:30:00.000Z');
  });

  it('Chatham, 5 April and 27 September 2026, at a quarter to the hour', () => {
    const at = (time: string, after: string) => next(daily(time, 'Pacific/Chatham'), after);
    // 03:45 goes back to 02:45: 03:00 occurs at +13:45, then at +12:45
    expect(at('03:00', '2026-04-04T00:00:00Z')).toBe('2026-04-04T13:15:00.000Z');
    expect(at('03:00', '2026-04-04T13:15:00Z')).toBe('2026-04-05T14:15:00.000Z');
    // 02:45 jumps to 03:45: 03:00 is missing and runs at the jump, 14:00 UTC
    expect(at('03:00', '2026-09-26T00:00:00Z')).toBe('2026-09-26T14:00:00.000Z');
    expect(at('03:00', '2026-09-26T14:00:00Z')).toBe('2026-09-27T13:15:00.000Z');
  });

  it('weekly across the change: the same wall clock, an hour more or less apart', () => {
    expect(next(weekly('sunday', '02:30', 'America/New_York'), '2026-03-01T08:00:00Z')).toBe('2026-03-08T07:00:00.000Z');
    // Monday 09:00 in London before and after the clocks go back: 7 days and 1 hour apart
    const before = next(weekly('monday', '09:00', 'Europe/London'), '2026-10-19T00:00:00Z');
    const after = next(weekly('monday', '09:00', 'Europe/London'), before);
    expect([before, after]).toEqual(['2026-10-19T08:00:00.000Z', '2026-10-26T09:00:00.000Z']);
    expect(Date.parse(after) - Date.parse(before)).toBe(7 * DAY + HOUR);
  });

  it('a whole missing day (Samoa moved across the date line on 30 December 2011) runs at the next day\'s start', () => {
    expect(next(daily('12:00', 'Pacific/Apia'), '2011-12-29T23:00:00Z')).toBe('2011-12-30T10:00:00.000Z');
    expect(next(daily('12:00', 'Pacific/Apia'), '2011-12-30T10:00:00Z')).toBe('2011-12-30T22:00:00.000Z');
  });
});

describe('weekly', () => {
  it('counts weekdays from Sunday, as WEEKDAYS lists them', () => {
    expect(WEEKDAYS).toEqual(['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']);
    // Wednesday 4 March 2026, 12:00 UTC, after that day's 09:00
    const expected: Record<Weekday, string> = {
      sunday: '2026-03-08', monday: '2026-03-09', tuesday: '2026-03-10', wednesday: '2026-03-11',
      thursday: '2026-03-05', friday: '2026-03-06', saturday: '2026-03-07',
    };
    for (const day of WEEKDAYS) expect(next(weekly(day, '09:00'), '2026-03-04T12:00:00Z'), day).toBe(`${expected[day]}T09:00:00.000Z`);
    expect(next(weekly('wednesday', '13:00'), '2026-03-04T12:00:00Z')).toBe('2026-03-04T13:00:00.000Z');
    expect(next(weekly('wednesday', '12:00'), '2026-03-04T12:00:00Z')).toBe('2026-03-11T12:00:00.000Z');
  });

  it('wraps the week and the year', () => {
    expect(next(weekly('sunday', '10:00'), '2026-03-14T23:00:00Z')).toBe('2026-03-15T10:00:00.000Z');
    expect(next(weekly('saturday', '10:00'), '2026-03-15T10:00:00Z')).toBe('2026-03-21T10:00:00.000Z');
    expect(next(weekly('friday', '09:00'), '2026-12-31T12:00:00Z')).toBe('2027-01-01T09:00:00.000Z');
    expect(next(weekly('thursday', '09:00'), '2026-12-31T12:00:00Z')).toBe('2027-01-07T09:00:00.000Z');
  });

  it('on the zone\'s weekday, not UTC\'s', () => {
    // Monday 08:00 in Chatham (winter) is Sunday 19:15 UTC
    expect(next(weekly('monday', '08:00', 'Pacific/Chatham'), '2026-06-01T00:00:00Z')).toBe('2026-06-07T19:15:00.000Z');
    // Friday 21:00 in New York (summer) is Saturday 01:00 UTC
    expect(next(weekly('friday', '21:00', 'America/New_York'), '2026-06-01T00:00:00Z')).toBe('2026-06-06T01:00:00.000Z');
    expect(next(weekly('monday', '18:30', 'Asia/Kolkata'), '2026-06-01T13:00:00Z')).toBe('2026-06-08T13:00:00.000Z');
    expect(next(weekly('monday', '18:30', 'Asia/Kolkata'), '2026-06-01T12:59:59Z')).toBe('2026-06-01T13:00:00.000Z');
  });
});

describe('a year of random instants', () => {
  const ZONES = ['UTC', 'Europe/London', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham'];
  const YEAR = [Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1)] as const;
  // instants near the year's clock changes, where mistakes live
  const CHANGES = ['2026-03-08T07:00Z', '2026-11-01T06:00Z', '2026-03-29T01:00Z', '2026-10-25T01:00Z', '2026-04-04T14:00Z', '2026-09-26T14:00Z'].map(Date.parse);
  const after = fc.oneof(
    fc.integer({ min: YEAR[0], max: YEAR[1] - 1 }),
    fc.tuple(fc.constantFrom(...CHANGES), fc.integer({ min: -8 * DAY, max: 2 * DAY })).map(([t, d]) => t + d),
  );
  const time = fc.tuple(
    fc.oneof(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 4 })),
    fc.oneof(fc.constantFrom(0, 15, 30, 45), fc.integer({ min: 0, max: 59 })),
  ).map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);

  it('runs later, within a period (and the hour a clock change adds), at the time asked for', () => {
    fc.assert(fc.property(after, fc.constantFrom(...ZONES), time, fc.option(fc.constantFrom(...WEEKDAYS), { nil: null }), (t, zone, hhmm, day) => {
      const schedule = day ? weekly(day, hhmm, zone) : daily(hhmm, zone);
      const run = nextRunAt(schedule, new Date(t)).getTime();
      expect(run).toBeGreaterThan(t);
      expect(run - t).toBeLessThanOrEqual((day ? 7 * DAY : DAY) + HOUR);

      const clock = local(run, zone);
      if (day) expect(clock.weekday).toBe(day);
      if (clock.time === hhmm) {
        expect(clock.second).toBe('00');
        expect(repeated(run, zone)).toBe(false);
      } else {
        // the time does not exist that day: the run is the instant the clocks jump past it
        const asked = Date.parse(`${clock.date}T${hhmm}:00Z`);
        expect(offset(run - 1000, zone)).toBeLessThan(offset(run, zone));
        expect(local(run - 1000, zone).asUtc).toBeLessThan(asked);
        expect(clock.asUtc).toBeGreaterThan(asked);
      }

      // nothing earlier would do: no first occurrence of the time in between (offsets are whole quarter hours)
      if (Number(hhmm.slice(3)) % 15 === 0) {
        for (let s = Math.ceil((t + 1) / (15 * MINUTE)) * 15 * MINUTE; s < run; s += 15 * MINUTE) {
          const c = local(s, zone);
          if (c.time === hhmm && (!day || c.weekday === day)) expect(repeated(s, zone), new Date(s).toISOString()).toBe(true);
        }
      }
    }), { numRuns: 1500 });
    // 1,500 schedules take about 3 s alone; a busy CI machine must not turn that into a failure
  }, 30_000);
});

describe('run once', () => {
  it('covers the start date from its first instant and the end date whole, in UTC by default', () => {
    const w = runOnceWindow({ from: '2026-03-01', to: '2026-03-31' });
    expect([w.from.toISOString(), w.to.toISOString()]).toEqual(['2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z']);
  });

  it('in a zone, across its clock change and the year end', () => {
    const ny = runOnceWindow({ from: '2026-03-01', to: '2026-03-08' }, 'America/New_York');
    expect([ny.from.toISOString(), ny.to.toISOString()]).toEqual(['2026-03-01T05:00:00.000Z', '2026-03-09T04:00:00.000Z']);
    const kolkata = runOnceWindow({ from: '2026-12-20', to: '2026-12-31' }, 'Asia/Kolkata');
    expect([kolkata.from.toISOString(), kolkata.to.toISOString()]).toEqual(['2026-12-19T18:30:00.000Z', '2026-12-31T18:30:00.000Z']);
    const chatham = runOnceWindow({ from: '2026-07-01', to: '2026-07-02' }, 'Pacific/Chatham');
    expect([chatham.from.toISOString(), chatham.to.toISOString()]).toEqual(['2026-06-30T11:15:00.000Z', '2026-07-02T11:15:00.000Z']);
  });

  it('starts a day whose midnight is missing at its first instant', () => {
    // Santiago's clocks go from 00:00 to 01:00 on 6 September 2026
    expect(runOnceWindow({ from: '2026-09-06', to: '2026-09-07' }, 'America/Santiago').from.toISOString()).toBe('2026-09-06T04:00:00.000Z');
    expect(zonedInstant({ year: 2026, month: 9, day: 6 }, 0, 0, 'America/Santiago').toISOString()).toBe('2026-09-06T04:00:00.000Z');
  });

  it('refuses dates that are not on the calendar', () => {
    expect(() => runOnceWindow({ from: '2026-02-29', to: '2026-03-02' })).toThrow(RangeError);
    expect(() => runOnceWindow({ from: '2026-03-01', to: '1 April' })).toThrow(RangeError);
  });
});

describe('bad input', () => {
  it('throws on a time that is not HH:MM, an invalid date or an unknown zone', () => {
    expect(() => nextRunAt(daily('24:00'), new Date())).toThrow(RangeError);
    expect(() => nextRunAt(daily('9:00'), new Date())).toThrow(RangeError);
    expect(() => nextRunAt(daily('09:00'), new Date(Number.NaN))).toThrow(RangeError);
    expect(() => nextRunAt(daily('09:00', 'Mars/Olympus_Mons'), new Date())).toThrow(RangeError);
  });
});

describe('in words', () => {
  it('names the frequency, the day, the time and the zone', () => {
    expect(describeSchedule({ mode: 'continuous' })).toBe(`Every ${CONTINUOUS_POLL_MINUTES} minutes`);
    expect(describeSchedule({ mode: 'continuous' })).toBe('Every 5 minutes');
    expect(describeSchedule(daily('09:00', 'Europe/London'))).toBe('Daily at 09:00 (Europe/London)');
    expect(describeSchedule(weekly('monday', '18:30', 'America/New_York'))).toBe('Weekly on Monday at 18:30 (America/New_York)');
    expect(WEEKDAYS.map((d) => describeSchedule(weekly(d, '07:05')).split(' ')[2])).toEqual(['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']);
  });
});

describe('a run time as the formula lists show it', () => {
  it('names the weekday, date and time in the reader\'s locale and zone', () => {
    // a daily 14:00 London run, read in London in winter and in summer
    expect(runTimeWords(next(daily('14:00', 'Europe/London'), '2026-11-28T09:00:00Z'), 'en-GB', 'Europe/London')).toBe('Sat 28 Nov, 14:00');
    expect(runTimeWords(next(daily('14:00', 'Europe/London'), '2026-07-28T09:00:00Z'), 'en-GB', 'Europe/London')).toBe('Tue 28 Jul, 14:00');
    // the same instant read in New York: the reader's clock, not the schedule's
    expect(runTimeWords('2026-11-28T14:00:00Z', 'en-US', 'America/New_York')).toBe('Sat, Nov 28, 09:00 AM');
    expect(runTimeWords(new Date('2026-11-28T14:05:00Z'), 'en-GB', 'UTC')).toBe('Sat 28 Nov, 14:05');
  });
});
