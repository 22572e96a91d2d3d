/**
 * The one date parser, the one cursor decoder and the one rule for text (src/domain/dateTime.ts,
 * cursor.ts, text.ts): what PostgreSQL would refuse is refused here, and what it stores passes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../src/domain/cursor.ts';
import { parseDate, parseDateTime, parseDay } from '../../src/domain/dateTime.ts';
import { holdsNameControl, textProblem, textProblemIn, TEXT_MESSAGES } from '../../src/domain/text.ts';

describe('dates', () => {
  it('refuses days that are none, year 0 and years past 9999', () => {
    for (const bad of ['2026-02-31', '2025-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '0000-01-01', '10000-01-01', '2026-1-1', '']) {
      expect(parseDay(bad), bad).toBeNull();
    }
    expect(parseDay('2024-02-29')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(parseDay('0001-01-01')?.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(parseDay('0099-12-31')?.getUTCFullYear()).toBe(99);
  });

  it('reads date-times with their offsets, as ISO 8601 and as PostgreSQL writes them', () => {
    expect(parseDateTime('2026-11-27T14:02:03Z')?.toISOString()).toBe('2026-11-27T14:02:03.000Z');
    expect(parseDateTime('2026-11-27 14:02:03.123456+00')?.toISOString()).toBe('2026-11-27T14:02:03.123Z');
    expect(parseDateTime('2026-11-27T14:02+05:30')?.toISOString()).toBe('2026-11-27T08:32:00.000Z');
    expect(parseDateTime('2026-11-27T14:02:03-0800')?.toISOString()).toBe('2026-11-27T22:02:03.000Z');
    for (const bad of [
      '2026-02-31T00:00:00Z', '0000-01-01T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T23:60:00Z', '2026-01-01T00:00:60Z',
      '2026-01-01T00:00:00+16:00', '2026-01-01T00:00:00+05:60', '2026-01-01T00:00:00', '2026-01-01', '0001-01-01T00:30:00+01:00',
      '9999-12-31T23:30:00-01:00', '1614556800000', 'yesterday',
    ]) expect(parseDateTime(bad), bad).toBeNull();
  });

  it('takes a day or a date-time where a field takes either', () => {
    expect(parseDate('2026-12-31', 'day or date-time')).not.toBeNull();
    expect(parseDate('2026-12-31T00:00:00Z', 'day or date-time')).not.toBeNull();
    expect(parseDate('2026-12-31T00:00:00Z', 'day')).toBeNull();
    expect(parseDate('2026-12-31', 'date-time')).toBeNull();
  });

  it('agrees with JavaScript on every instant it accepts between years 1 and 9999', () => {
    fc.assert(fc.property(fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (at) => {
      expect(parseDateTime(at.toISOString())?.getTime()).toBe(at.getTime());
    }));
  });
});

describe('cursors', () => {
  const id = '0b5e4f1a-2c3d-4e5f-8a9b-0c1d2e3f4a5b';
  it('read back what they wrote', () => {
    expect(decodeCursor(encodeCursor('2026-11-27 14:02:03.123456+00', id), 'date-time')).toEqual({ key: '2026-11-27 14:02:03.123456+00', id });
    expect(decodeCursor(encodeCursor('-infinity', id), 'date-time or -infinity')).toEqual({ key: '-infinity', id });
    expect(decodeCursor(encodeCursor('2147483647', id), 'int4')).toEqual({ key: '2147483647', id });
  });

  it('refuse keys the database would not compare: impossible dates, integers outside int4, another key\'s kind', () => {
    for (const [key, kind] of [
      ['2026-02-31 00:00:00+00', 'date-time'], ['0000-01-01 00:00:00+00', 'date-time'], ['-infinity', 'date-time'],
      ['2147483648', 'int4'], ['-2147483649', 'int4'], ['9999999999', 'int4'], ['1.5', 'int4'], ['2026-01-01 00:00:00+00', 'int4'],
    ] as const) expect(decodeCursor(encodeCursor(key, id), kind), `${kind} ${key}`).toBeNull();
    expect(decodeCursor(encodeCursor('1', 'not-an-id'), 'int4')).toBeNull();
    for (const bad of ['', 'garbage', '!!!', 'x'.repeat(401), Buffer.from('["1"]').toString('base64url'), Buffer.from([0xff, 0xfe]).toString('base64url')]) {
      expect(decodeCursor(bad, 'int4'), bad).toBeNull();
    }
  });
});

describe('text', () => {
  it('refuses NUL and half a surrogate pair anywhere, keys included; a whole pair is text', () => {
    expect(textProblem('Ada \ud83d\ude00')).toBeNull();
    expect(textProblem('Ada\ud800')).toBe(TEXT_MESSAGES.surrogate);
    expect(textProblem('\udfffAda')).toBe(TEXT_MESSAGES.surrogate);
    expect(textProblem('a\u0000b')).toBe(TEXT_MESSAGES.nul);
    expect(textProblemIn({ values: { firstName: ['ok', 'x\ud83d'] } })).toBe(TEXT_MESSAGES.surrogate);
    expect(textProblemIn({ ['key\udc00']: 1 })).toBe(TEXT_MESSAGES.surrogate);
    expect(textProblemIn({ a: [1, true, null, 'fine'] })).toBeNull();
  });

  it('finds line breaks, control characters and bidirectional overrides in names', () => {
    for (const name of ['Ada\r\nLovelace', 'Ada\nLovelace', 'Ada\tLovelace', 'Ada\u0007', 'Ada \u202eecalevoL', 'Ada \u2066x\u2069']) expect(holdsNameControl(name), name).toBe(true);
    for (const name of ['Ada Lovelace', 'José Ñúñez-O\'Brien', '李 小龍', 'Zoë d\u2019Arc']) expect(holdsNameControl(name), name).toBe(false);
  });
});
