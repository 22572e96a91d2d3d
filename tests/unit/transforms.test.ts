/**
 * The transforms of SPEC.md section 5 as the engine runs them and the mapping preview shows them
 * (src/domain/formula/transforms.ts), and the validation rules' verdicts on values
 * (src/domain/formula/validationRules.ts): every step with its edge cases (empty values, unicode,
 * month ends, leap years, dates across the 2026 daylight-saving changes, negative numbers and
 * rounding ties), each failure as a message for its field and never a throw.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Separator } from '../../src/domain/formula/constants.ts';
import type { TransformStep, ValidationRule } from '../../src/domain/formula/parts.ts';
import {
  adjustDate, applyTransform, changeCase, plainNumber, round, toFieldValue, TRANSFORM_MESSAGES, transformRecord, type FieldValue,
} from '../../src/domain/formula/transforms.ts';
import { RULE_MESSAGES, validateRecord, validateValue } from '../../src/domain/formula/validationRules.ts';
import { newStep } from '../../src/domain/formula/mappingForm.ts';

const apply = (step: TransformStep, value: FieldValue, row: Record<string, unknown> = {}) => applyTransform(step, value, row);
const ok = (value: FieldValue) => ({ ok: true, value });
const failed = (error: string) => ({ ok: false, error });

describe('concatenate', () => {
  const row = { First: 'Ada', Middle: '', Last: 'Lovelace', Title: null, Age: 36, Padded: '  Byron  ', Blank: '   ' };
  const concat = (fields: string[], separator: Separator) =>
    apply({ kind: 'concatenate', fields, separator }, 'ignored: concatenate reads the row', row);

  it('joins the named source fields of the raw row with the separator', () => {
    expect(concat(['First', 'Last'], 'space')).toEqual(ok('Ada Lovelace'));
    expect(concat(['Last', 'First'], 'comma')).toEqual(ok('Lovelace,Ada'));
    expect(concat(['First', 'Last'], 'none')).toEqual(ok('AdaLovelace'));
    expect(concat(['First', 'Last'], 'crlf')).toEqual(ok('Ada\r\nLovelace'));
  });

  it.each([
    ['dash', '-'], ['period', '.'], ['underscore', '_'], ['forward-slash', '/'], ['semicolon', ';'], ['colon', ':'],
  ] as const)('puts %s between values', (separator, text) => {
    expect(concat(['First', 'Last'], separator)).toEqual(ok(`Ada${text}Lovelace`));
  });

  it('skips empty, blank and missing values, so no separator is doubled or left dangling', () => {
    expect(concat(['First', 'Middle', 'Title', 'Blank', 'Nowhere', 'Last'], 'dash')).toEqual(ok('Ada-Lovelace'));
    expect(concat(['Middle', 'First'], 'comma')).toEqual(ok('Ada'));
    expect(concat(['Middle', 'Title'], 'comma')).toEqual(ok(''));
  });

  it('trims each value and writes numbers as their digits', () => {
    expect(concat(['Padded', 'Age'], 'space')).toEqual(ok('Byron 36'));
  });

  it('does not read a field called constructor from Object', () => {
    expect(concat(['constructor', 'First'], 'space')).toEqual(ok('Ada'));
  });

  it('keeps unicode as it is', () => {
    expect(apply({ kind: 'concatenate', fields: ['a', 'b'], separator: 'space' }, null, { a: 'Zoë', b: '👩🏽‍💻' })).toEqual(ok('Zoë 👩🏽‍💻'));
  });
});

describe('shorten', () => {
  const shorten = (value: FieldValue, limit: number) => apply({ kind: 'shorten', limit }, value);

  it('keeps the first N characters', () => {
    expect(shorten('Lovelace', 4)).toEqual(ok('Love'));
    expect(shorten('Ada', 3)).toEqual(ok('Ada'));
    expect(shorten('Ada', 10)).toEqual(ok('Ada'));
  });

  it('counts user-perceived characters: an emoji, a flag or an accent is never cut in half', () => {
    expect(shorten('👩🏽‍💻👨‍👩‍👧abc', 2)).toEqual(ok('👩🏽‍💻👨‍👩‍👧'));
    expect(shorten('🇬🇧🇫🇷', 1)).toEqual(ok('🇬🇧'));
    // e + combining acute accent is one character
    expect(shorten('e\u0301cole', 1)).toEqual(ok('e\u0301'));
    expect(shorten('名前テスト', 2)).toEqual(ok('名前'));
  });

  it('leaves empty values empty, and shortens numbers as text', () => {
    expect(shorten(null, 3)).toEqual(ok(null));
    expect(shorten('', 3)).toEqual(ok(''));
    expect(shorten(123456, 3)).toEqual(ok('123'));
  });
});

describe('split', () => {
  const split = (value: FieldValue, splitter: string, position: number) => apply({ kind: 'split', splitter, position }, value);

  it('takes the part at a 1-based position, trimmed', () => {
    expect(split('Lovelace, Ada', ',', 1)).toEqual(ok('Lovelace'));
    expect(split('Lovelace, Ada', ',', 2)).toEqual(ok('Ada'));
    expect(split('a::b::c', '::', 3)).toEqual(ok('c'));
  });

  it('gives an empty value past the last part, and the whole value when the splitter is absent', () => {
    expect(split('Lovelace, Ada', ',', 3)).toEqual(ok(''));
    expect(split('Ada', ',', 1)).toEqual(ok('Ada'));
    expect(split('Ada', ',', 2)).toEqual(ok(''));
    expect(split('a,,b', ',', 2)).toEqual(ok(''));
  });

  it('is case-sensitive and unicode-safe', () => {
    expect(split('fooXbarxbaz', 'x', 2)).toEqual(ok('baz'));
    expect(split('Zoë→Ünal', '→', 2)).toEqual(ok('Ünal'));
  });

  it('leaves empty values empty, and splits numbers as text', () => {
    expect(split(null, ',', 1)).toEqual(ok(null));
    expect(split('', ',', 1)).toEqual(ok(''));
    expect(split(12.5, '.', 2)).toEqual(ok('5'));
  });
});

describe('adjust date', () => {
  const adjust = (value: FieldValue, amount: number, unit: 'year' | 'month' | 'week' | 'day' | 'hour' | 'minute', direction: 'add' | 'subtract' = 'add') =>
    apply({ kind: 'adjust-date', amount, unit, direction }, value);

  it('adds and subtracts every unit on a date, which stays a date', () => {
    expect(adjust('2026-05-10', 1, 'year')).toEqual(ok('2027-05-10'));
    expect(adjust('2026-05-10', 2, 'month')).toEqual(ok('2026-07-10'));
    expect(adjust('2026-05-10', 1, 'week')).toEqual(ok('2026-05-17'));
    expect(adjust('2026-05-10', 3, 'day', 'subtract')).toEqual(ok('2026-05-07'));
    expect(adjust('2026-12-31', 1, 'day')).toEqual(ok('2027-01-01'));
    expect(adjust('2026-01-01', 1, 'month', 'subtract')).toEqual(ok('2025-12-01'));
  });

  it('moves a date by hours and minutes as its midnight would move, keeping only the day', () => {
    expect(adjust('2026-05-10', 23, 'hour')).toEqual(ok('2026-05-10'));
    expect(adjust('2026-05-10', 24, 'hour')).toEqual(ok('2026-05-11'));
    expect(adjust('2026-05-10', 1, 'minute', 'subtract')).toEqual(ok('2026-05-09'));
  });

  it('clamps month ends and knows leap years', () => {
    expect(adjust('2026-01-31', 1, 'month')).toEqual(ok('2026-02-28'));
    expect(adjust('2028-01-31', 1, 'month')).toEqual(ok('2028-02-29'));
    expect(adjust('2026-03-31', 1, 'month', 'subtract')).toEqual(ok('2026-02-28'));
    expect(adjust('2026-05-31', 1, 'month')).toEqual(ok('2026-06-30'));
    expect(adjust('2028-02-29', 1, 'year')).toEqual(ok('2029-02-28'));
    expect(adjust('2028-02-29', 4, 'year')).toEqual(ok('2032-02-29'));
    expect(adjust('2100-02-28', 1, 'day')).toEqual(ok('2100-03-01'));
    expect(adjust('2000-02-28', 1, 'day')).toEqual(ok('2000-02-29'));
    expect(adjust('2026-01-31', 13, 'month')).toEqual(ok('2027-02-28'));
  });

  it('keeps a date-time\'s form: separator, seconds, fraction and offset as written', () => {
    expect(adjust('2026-05-10T09:30:00Z', 90, 'minute')).toEqual(ok('2026-05-10T11:00:00Z'));
    expect(adjust('2026-05-10T09:30', 1, 'hour')).toEqual(ok('2026-05-10T10:30'));
    expect(adjust('2026-05-10 09:30:15.250+02:00', 1, 'day')).toEqual(ok('2026-05-11 09:30:15.250+02:00'));
    expect(adjust('2026-05-10T23:30:00-0500', 1, 'hour')).toEqual(ok('2026-05-11T00:30:00-0500'));
    expect(adjust('2026-01-31T12:00:00+01:00', 1, 'month')).toEqual(ok('2026-02-28T12:00:00+01:00'));
  });

  describe('across the 2026 daylight-saving changes', () => {
    const originalTz = process.env.TZ;
    afterEach(() => { process.env.TZ = originalTz; });

    // United States: 8 March and 1 November 2026; European Union: 29 March and 25 October 2026
    const cases: [string, FieldValue, number, 'day' | 'hour' | 'week' | 'month', string][] = [
      ['a day over the US spring change keeps the written offset and time', '2026-03-07T12:00:00-05:00', 1, 'day', '2026-03-08T12:00:00-05:00'],
      ['an hour through the US spring gap is an hour', '2026-03-08T01:30:00-05:00', 1, 'hour', '2026-03-08T02:30:00-05:00'],
      ['a day over the EU spring change, in UTC', '2026-03-28T23:30:00Z', 1, 'day', '2026-03-29T23:30:00Z'],
      ['an hour into the EU gap as written without offset', '2026-03-29T01:30:00', 1, 'hour', '2026-03-29T02:30:00'],
      ['a day over the EU autumn change', '2026-10-24T02:30:00+02:00', 1, 'day', '2026-10-25T02:30:00+02:00'],
      ['a week over the US autumn change', '2026-10-28T08:00:00-04:00', 1, 'week', '2026-11-04T08:00:00-04:00'],
      ['a date over a change is a date', '2026-03-08', 1, 'day', '2026-03-09'],
      ['a month from before to after the EU change', '2026-03-15T10:00', 1, 'month', '2026-04-15T10:00'],
    ];

    it.each(cases)('%s', (_name, value, amount, unit, expected) => {
      expect(adjust(value, amount, unit)).toEqual(ok(expected));
    });

    it('gives the same answer whatever the machine\'s time zone', () => {
      const answers = ['UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe'].map((tz) => {
        process.env.TZ = tz;
        return cases.map(([, value, amount, unit]) => adjust(value, amount, unit));
      });
      for (const a of answers) expect(a).toEqual(answers[0]);
      expect(answers[0]).toEqual(cases.map(([, , , , expected]) => ok(expected)));
    });
  });

  it('leaves empty values empty', () => {
    expect(adjust(null, 1, 'day')).toEqual(ok(null));
    expect(adjust('', 1, 'day')).toEqual(ok(''));
    expect(adjust('   ', 1, 'day')).toEqual(ok('   '));
  });

  it('refuses what is not a date with a message naming what it is, and never throws', () => {
    expect(adjust('next Tuesday', 1, 'day')).toEqual(failed(TRANSFORM_MESSAGES.adjustNeedsDate('text')));
    expect(adjust('next Tuesday', 1, 'day')).toEqual(failed('Adjust date needs a date (YYYY-MM-DD) or an ISO date-time, not text'));
    expect(adjust(20260510, 1, 'day')).toEqual(failed('Adjust date needs a date (YYYY-MM-DD) or an ISO date-time, not a number'));
    expect(adjust('10/05/2026', 1, 'day')).toEqual(failed(TRANSFORM_MESSAGES.adjustNeedsDate('text')));
    expect(adjust('2026-02-29', 1, 'day')).toEqual(failed('2026-02-29 is not a calendar date'));
    expect(adjust('2026-13-01', 1, 'day')).toEqual(failed('2026-13-01 is not a calendar date'));
    expect(adjust('2026-05-10T24:00:00Z', 1, 'day')).toEqual(failed('2026-05-10T24:00:00Z is not a calendar date'));
    expect(adjust('2026-05-10T10:00:00+25:00', 1, 'day')).toEqual(failed('2026-05-10T10:00:00+25:00 is not a calendar date'));
  });

  it('refuses a result outside the years 0000 to 9999', () => {
    expect(adjust('9999-12-31', 1, 'day')).toEqual(failed(TRANSFORM_MESSAGES.dateOutOfRange));
    expect(adjust('0001-01-01', 2, 'year', 'subtract')).toEqual(failed(TRANSFORM_MESSAGES.dateOutOfRange));
    expect(adjust('2026-05-10', 2_000_000_000, 'year')).toEqual(failed(TRANSFORM_MESSAGES.dateOutOfRange));
    expect(adjust('0050-03-01', 1, 'day', 'subtract')).toEqual(ok('0050-02-28'));
  });

  it('is the function the step runs', () => {
    expect(adjustDate('2026-01-31', -1, 'day')).toEqual(ok('2026-01-30'));
  });
});

describe('round', () => {
  const r = (value: FieldValue, mode: 'up' | 'down' | 'half-up', place: 'ones' | 'tenths' | 'hundredths' | 'thousandths') =>
    apply({ kind: 'round', mode, place }, value);

  it('rounds half up on the decimal digits, not on binary floating point', () => {
    expect(r(1.005, 'half-up', 'hundredths')).toEqual(ok(1.01));
    expect(r(1.0049, 'half-up', 'hundredths')).toEqual(ok(1));
    expect(r(2.675, 'half-up', 'hundredths')).toEqual(ok(2.68));
    expect(r(0.1 + 0.2, 'half-up', 'tenths')).toEqual(ok(0.3));
    expect(r(1.0005, 'half-up', 'thousandths')).toEqual(ok(1.001));
  });

  it('takes ties away from zero, also for negative numbers', () => {
    expect(r(2.5, 'half-up', 'ones')).toEqual(ok(3));
    expect(r(-2.5, 'half-up', 'ones')).toEqual(ok(-3));
    expect(r(-2.45, 'half-up', 'tenths')).toEqual(ok(-2.5));
    expect(r(-2.44, 'half-up', 'tenths')).toEqual(ok(-2.4));
  });

  it('rounds up away from zero and down towards zero', () => {
    expect(r(2.1, 'up', 'ones')).toEqual(ok(3));
    expect(r(-2.1, 'up', 'ones')).toEqual(ok(-3));
    expect(r(2.9, 'down', 'ones')).toEqual(ok(2));
    expect(r(-2.9, 'down', 'ones')).toEqual(ok(-2));
    expect(r(1.2301, 'up', 'hundredths')).toEqual(ok(1.24));
    expect(r(1.23, 'up', 'hundredths')).toEqual(ok(1.23));
    expect(r(1.2399, 'down', 'hundredths')).toEqual(ok(1.23));
  });

  it('never gives a negative zero', () => {
    expect(r(-0.4, 'half-up', 'ones')).toEqual(ok(0));
    expect(Object.is((r(-0.4, 'half-up', 'ones') as { value: number }).value, -0)).toBe(false);
    expect(r('-0.04', 'down', 'tenths')).toEqual(ok('0.0'));
  });

  it('rounds numeric text to text with exactly the place\'s decimals', () => {
    expect(r('10.499', 'half-up', 'hundredths')).toEqual(ok('10.50'));
    expect(r('10.5', 'half-up', 'hundredths')).toEqual(ok('10.50'));
    expect(r(' 7 ', 'up', 'tenths')).toEqual(ok('7.0'));
    expect(r('+3.14159', 'half-up', 'thousandths')).toEqual(ok('3.142'));
    expect(r('.5', 'half-up', 'ones')).toEqual(ok('1'));
    expect(r('5.', 'half-up', 'ones')).toEqual(ok('5'));
    expect(r('-1.005', 'half-up', 'hundredths')).toEqual(ok('-1.01'));
    expect(r('9.999', 'half-up', 'hundredths')).toEqual(ok('10.00'));
    expect(r('123456789012345678901234567890.125', 'half-up', 'hundredths')).toEqual(ok('123456789012345678901234567890.13'));
  });

  it('reads numbers JavaScript prints with an exponent', () => {
    expect(plainNumber(1e21)).toBe('1000000000000000000000');
    expect(plainNumber(1.5e-7)).toBe('0.00000015');
    expect(plainNumber(-2.5e-7)).toBe('-0.00000025');
    expect(r(1.5e-7, 'up', 'thousandths')).toEqual(ok(0.001));
    expect(r(1e21, 'half-up', 'ones')).toEqual(ok(1e21));
  });

  it('leaves empty values empty', () => {
    expect(r(null, 'up', 'ones')).toEqual(ok(null));
    expect(r('', 'up', 'ones')).toEqual(ok(''));
  });

  it('refuses what is not a number with a message naming what it is', () => {
    expect(r('twelve', 'up', 'ones')).toEqual(failed('Round needs a number, not text'));
    expect(r('1,234.5', 'up', 'ones')).toEqual(failed('Round needs a number, not text'));
    expect(r('1e3', 'up', 'ones')).toEqual(failed('Round needs a number, not text'));
    expect(r('.', 'up', 'ones')).toEqual(failed('Round needs a number, not text'));
    expect(r('١٢', 'up', 'ones')).toEqual(failed('Round needs a number, not text'));
    expect(round(Number.NaN, 'up', 'ones')).toEqual(failed('Round needs a number, not a number that is not finite'));
  });
});

describe('case', () => {
  it('starts in lower case for an e-mail field, by its type or its name, and in title case for any other', () => {
    expect(newStep('case', 'Email', { name: 'email', type: 'email' })).toMatchObject({ kind: 'case', to: 'lower' });
    expect(newStep('case', 'Email', { name: 'Email_Address__c', type: 'string' })).toMatchObject({ to: 'lower' });
    expect(newStep('case', 'First', { name: 'firstName', type: 'string' })).toMatchObject({ to: 'title' });
    expect(newStep('case', 'First')).toMatchObject({ to: 'title' });
  });

  const c = (value: FieldValue, to: 'upper' | 'lower' | 'title' | 'sentence') => apply({ kind: 'case', to }, value);

  it('upper and lower case any script', () => {
    expect(c('ÉCOLE Ünal', 'lower')).toEqual(ok('école ünal'));
    expect(c('straße', 'upper')).toEqual(ok('STRASSE'));
    expect(c('ΟΔΟΣ', 'lower')).toEqual(ok('οδος'));
    expect(c('ada lovelace', 'upper')).toEqual(ok('ADA LOVELACE'));
  });

  it('title-cases each word, with a capital after a one-letter prefix and apostrophe', () => {
    expect(c("o'neil-smith", 'title')).toEqual(ok("O'Neil-Smith"));
    expect(c("D’ANGELO", 'title')).toEqual(ok('D’Angelo'));
    expect(c("don't stop", 'title')).toEqual(ok("Don't Stop"));
    expect(c('ÉMILE zola', 'title')).toEqual(ok('Émile Zola'));
    expect(c('e\u0301mile', 'title')).toEqual(ok('E\u0301mile'));
    expect(c('3rd  avenue,new york', 'title')).toEqual(ok('3rd  Avenue,New York'));
  });

  it('sentence-cases the first letter of each sentence', () => {
    expect(c('HELLO THERE. how ARE you? fine!  ok', 'sentence')).toEqual(ok('Hello there. How are you? Fine!  Ok'));
    expect(c('  ¿qué tal? bien', 'sentence')).toEqual(ok('  ¿Qué tal? Bien'));
    expect(c('version 2.5 is out', 'sentence')).toEqual(ok('Version 2.5 is out'));
  });

  it('leaves empty values empty, and cases numbers as text', () => {
    expect(c(null, 'upper')).toEqual(ok(null));
    expect(c('', 'title')).toEqual(ok(''));
    expect(c(42, 'upper')).toEqual(ok('42'));
  });

  it('is the function the step runs', () => {
    expect(changeCase('ada', 'title')).toBe('Ada');
  });
});

describe('raw values', () => {
  it('become text or numbers', () => {
    expect(toFieldValue(undefined)).toBeNull();
    expect(toFieldValue(null)).toBeNull();
    expect(toFieldValue(true)).toBe('true');
    expect(toFieldValue(12n)).toBe('12');
    expect(toFieldValue(Number.POSITIVE_INFINITY)).toBe('Infinity');
    expect(toFieldValue(new Date('2026-03-08T07:00:00Z'))).toBe('2026-03-08T07:00:00.000Z');
    expect(toFieldValue({ a: 1 })).toBe('{"a":1}');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(toFieldValue(circular)).toBe('[object Object]');
  });
});

describe('a record', () => {
  const row = { 'First name': 'ada', 'Last name': "o'neil", Email: 'ADA@EXAMPLE.ORG', Amount: '12.345', Joined: '2026-01-31', Notes: 'x' };
  const mapping = {
    fields: [
      { destination: 'firstName', kind: 'source' as const, source: 'First name' },
      { destination: 'lastName', kind: 'source' as const, source: 'Last name' },
      { destination: 'fullName', kind: 'source' as const, source: 'First name' },
      { destination: 'email', kind: 'source' as const, source: 'Email' },
      { destination: 'amount', kind: 'source' as const, source: 'Amount' },
      { destination: 'joined', kind: 'source' as const, source: 'Joined' },
      { destination: 'fund', kind: 'defined' as const, value: '10-200' },
      { destination: 'title', kind: 'ignored' as const },
      { destination: 'missing', kind: 'source' as const, source: 'Not in the row' },
      { destination: 'notes', kind: 'source' as const, source: 'Notes' },
    ],
  };
  const transform = {
    fields: [
      { destination: 'firstName', steps: [{ kind: 'case' as const, to: 'title' as const }] },
      { destination: 'lastName', steps: [{ kind: 'case' as const, to: 'title' as const }] },
      {
        destination: 'fullName',
        steps: [{ kind: 'concatenate' as const, fields: ['First name', 'Last name'], separator: 'space' as const }, { kind: 'case' as const, to: 'upper' as const }, { kind: 'shorten' as const, limit: 6 }],
      },
      { destination: 'email', steps: [{ kind: 'case' as const, to: 'lower' as const }] },
      { destination: 'amount', steps: [{ kind: 'round' as const, mode: 'half-up' as const, place: 'hundredths' as const }] },
      { destination: 'joined', steps: [{ kind: 'adjust-date' as const, amount: 1, unit: 'month' as const, direction: 'add' as const }] },
      { destination: 'notes', steps: [{ kind: 'round' as const, mode: 'up' as const, place: 'ones' as const }, { kind: 'case' as const, to: 'upper' as const }] },
      { destination: 'title', steps: [{ kind: 'case' as const, to: 'upper' as const }] },
    ],
  };

  it('gives each mapped field its value after its steps in order, leaves ignored fields out, and reports failed fields', () => {
    expect(transformRecord(mapping, transform, row)).toEqual({
      values: {
        firstName: 'Ada', lastName: "O'Neil", fullName: "ADA O'", email: 'ada@example.org', amount: '12.35', joined: '2026-02-28', fund: '10-200', missing: null,
      },
      errors: { notes: 'Round needs a number, not text' },
    });
  });

  it('works without transforms, and with no row values', () => {
    expect(transformRecord(mapping, null, {})).toEqual({
      values: { firstName: null, lastName: null, fullName: null, email: null, amount: null, joined: null, fund: '10-200', missing: null, notes: null },
      errors: {},
    });
  });

  it('applies steps to a defined value too', () => {
    const m = { fields: [{ destination: 'code', kind: 'defined' as const, value: '1.2345' }] };
    expect(transformRecord(m, { fields: [{ destination: 'code', steps: [{ kind: 'round', mode: 'down', place: 'tenths' }] }] }, {}).values).toEqual({ code: '1.2' });
  });

  it('keeps a destination field called __proto__ as a field', () => {
    const m = { fields: [{ destination: '__proto__', kind: 'defined' as const, value: '1' }] };
    const { values } = transformRecord(m, null, {});
    expect(Object.keys(values)).toEqual(['__proto__']);
  });
});

describe('validation rules on values', () => {
  const rule = <R extends ValidationRule['rule']>(r: R, extra: Record<string, unknown> = {}) =>
    ({ destination: 'f', bucket: 'Bad', rule: r, ...extra }) as ValidationRule;

  it('required refuses empty and blank values only', () => {
    for (const v of [null, undefined, '', '   ']) expect(validateValue(rule('required'), v)).toBe('A value is required');
    for (const v of ['x', 0, '0']) expect(validateValue(rule('required'), v)).toBeNull();
  });

  it('every other rule passes an empty value', () => {
    for (const r of [rule('email'), rule('phone'), rule('length', { min: 3 }), rule('one-of', { values: ['a'] })]) {
      expect(validateValue(r, null)).toBeNull();
      expect(validateValue(r, '  ')).toBeNull();
    }
  });

  it('e-mail', () => {
    for (const good of ['ada@example.org', ' ada.lovelace+tag@mail.example.co.uk ', 'josé@exämple.de', 'a@b.io', 'x@xn--p1ai.xn--p1ai']) {
      expect(validateValue(rule('email'), good), good).toBeNull();
    }
    for (const bad of ['ada', 'ada@', '@example.org', 'ada@example', 'ada example@x.org', 'ada@@x.org', 'ada..b@x.org', '.ada@x.org', 'ada.@x.org', 'ada@x..org', 'ada@-x.org', 'ada@x.123', `${'a'.repeat(250)}@x.org`]) {
      expect(validateValue(rule('email'), bad), bad).toBe('Not a valid e-mail address');
    }
  });

  it('phone: 7 to 15 digits once formatting is taken out, with one leading +', () => {
    for (const good of ['+44 20 7946 0958', '(555) 123-4567', '555.1234', '1234567', '+123456789012345']) {
      expect(validateValue(rule('phone'), good), good).toBeNull();
    }
    for (const bad of ['123456', '+1234567890123456', '555-CALL-NOW', '++441234567', '44+1234567', '555 1234 x12']) {
      expect(validateValue(rule('phone'), bad), bad).toBe('Not a valid phone number (7 to 15 digits)');
    }
    expect(validateValue(rule('phone'), 5551234)).toBeNull();
  });

  it('length counts user-perceived characters, bounds included', () => {
    expect(validateValue(rule('length', { min: 2, max: 4 }), 'abcd')).toBeNull();
    expect(validateValue(rule('length', { min: 2, max: 4 }), 'a')).toBe('Must be 2 to 4 characters long');
    expect(validateValue(rule('length', { min: 2, max: 4 }), 'abcde')).toBe('Must be 2 to 4 characters long');
    expect(validateValue(rule('length', { min: 3 }), 'ab')).toBe('Must be at least 3 characters long');
    expect(validateValue(rule('length', { max: 2 }), '👩🏽‍💻👩🏽‍💻')).toBeNull();
    expect(validateValue(rule('length', { max: 2 }), '👩🏽‍💻👩🏽‍💻x')).toBe('Must be at most 2 characters long');
    expect(validateValue(rule('length', { min: 5, max: 5 }), 'abcd')).toBe('Must be exactly 5 characters long');
    expect(validateValue(rule('length', { max: 3 }), ' abc ')).toBeNull();
  });

  it('one of ignores capitalisation and surrounding spaces, not accents', () => {
    const gold = rule('one-of', { values: ['Gold', 'Silver', 'Café'] });
    expect(validateValue(gold, 'gold')).toBeNull();
    expect(validateValue(gold, ' SILVER ')).toBeNull();
    expect(validateValue(gold, 'cafe\u0301')).toBeNull();
    expect(validateValue(gold, 'Cafe')).toBe('Must be one of: Gold, Silver, Café');
    expect(RULE_MESSAGES.oneOf(['a', 'b', 'c', 'd', 'e', 'f'])).toBe('Must be one of: a, b, c, d, e, …');
  });

  it('a record fails every rule it breaks, each naming its bucket; a field whose transform failed is left to that failure', () => {
    const validation = {
      rules: [
        { destination: 'email', rule: 'email' as const, bucket: 'Bad e-mail' },
        { destination: 'email', rule: 'required' as const, bucket: 'Missing' },
        { destination: 'phone', rule: 'required' as const, bucket: 'Missing' },
        { destination: 'amount', rule: 'required' as const, bucket: 'Missing' },
      ],
    };
    expect(validateRecord(validation, { email: 'nope', amount: null }, { amount: 'Round needs a number, not text' })).toEqual([
      { destination: 'email', bucket: 'Bad e-mail', message: 'Not a valid e-mail address' },
      { destination: 'phone', bucket: 'Missing', message: 'A value is required' },
    ]);
    expect(validateRecord(null, {})).toEqual([]);
  });
});
