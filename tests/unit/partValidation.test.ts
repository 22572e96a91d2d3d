/**
 * The rules of the mapping, transform, validation and summary-fields parts (SPEC.md section 5)
 * with their exact messages (src/domain/formula/parts.ts): what the wizard's mapping step shows
 * and what the part endpoints refuse with. Each refusal is checked by its message, and each
 * rule's boundary by a body just inside it.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { SEPARATOR_NAMES } from '../../src/domain/formula/constants.ts';
import {
  fieldSelectionProblem, FORMULA_PARTS, MappingSchema, PART_MESSAGES, PART_PROBLEM_MESSAGES, SummaryFieldsSchema, TransformSchema, TransformStepSchema,
  ValidationRuleSchema, ValidationSchema,
} from '../../src/domain/formula/parts.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';

/** The messages a schema refuses a body with (none when it accepts it). */
const messages = (schema: v.GenericSchema, body: unknown) => {
  const r = v.safeParse(schema, body);
  return r.success ? [] : r.issues.map((i) => i.message);
};

const source = (destination: string, from = 'Source') => ({ destination, kind: 'source', source: from });

describe('the messages', () => {
  it('are SPEC.md section 5\'s words where it has them', () => {
    expect(PART_MESSAGES).toMatchObject({
      nothingMapped: 'Map at least one field',
      noFieldSelected: 'Select at least one field',
      selectionRequired: 'Select the fields to map: the destination has more than 200 fields',
      concatenateCount: 'Concatenation needs 2 to 10 fields',
      shortenLimit: 'Shorten needs a numeric character limit',
      splitSplitter: 'Split needs a splitter',
      splitPosition: 'Split position must be greater than 0',
      adjustAmount: 'Date adjustment must be greater than 0',
      definedValue: 'A defined value accepts only digits, periods and hyphens',
    });
  });

  it('of a failed load or save name the part (SPEC.md section 8: Error loading Mapping)', () => {
    expect(PART_PROBLEM_MESSAGES['mapping-get-failed']).toBe('Error loading Mapping');
    expect(PART_PROBLEM_MESSAGES['transform-get-failed']).toBe('Error loading Transformations');
    expect(PART_PROBLEM_MESSAGES['mapping-upsert-failed']).toBe('Mapping could not be saved.');
    expect(PART_PROBLEM_MESSAGES['summary-fields-delete-failed']).toBe('Summary fields could not be deleted.');
  });

  it('accept the valid bodies the other tests save', () => {
    for (const part of ['mapping', 'transform', 'validation', 'summary-fields'] as const) {
      expect(messages(FORMULA_PARTS[part].schema, VALID_PARTS[part]), part).toEqual([]);
    }
  });
});

describe('mapping', () => {
  it('needs at least one field mapped from a source or given a defined value', () => {
    expect(messages(MappingSchema, { fields: [] })).toEqual(['Map at least one field']);
    expect(messages(MappingSchema, { fields: [{ destination: 'title', kind: 'ignored' }, { destination: 'email', kind: 'ignored' }] })).toEqual(['Map at least one field']);
    expect(messages(MappingSchema, { fields: [source('email')] })).toEqual([]);
    expect(messages(MappingSchema, { fields: [{ destination: 'fund', kind: 'defined', value: '10' }] })).toEqual([]);
  });

  it('a defined value accepts only digits, periods and hyphens, and is not empty', () => {
    for (const value of ['0', '10-200', '3.14', '-1', '2026-05-10', '...', '---']) {
      expect(messages(MappingSchema, { fields: [{ destination: 'x', kind: 'defined', value }] }), value).toEqual([]);
    }
    for (const value of ['abc', '1,5', '1 000', '+1', '١٢', '1e3', '10/05', ' 1']) {
      expect(messages(MappingSchema, { fields: [{ destination: 'x', kind: 'defined', value }] }), value).toContain('A defined value accepts only digits, periods and hyphens');
    }
    expect(messages(MappingSchema, { fields: [{ destination: 'x', kind: 'defined', value: '' }] })).toContain('Enter a defined value');
  });

  it('names a field for each mapping, and a destination field once', () => {
    expect(messages(MappingSchema, { fields: [source('email', '')] })).toEqual(['Choose a field']);
    expect(messages(MappingSchema, { fields: [source('  ')] })).toEqual(['Choose a field']);
    expect(messages(MappingSchema, { fields: [source('email', 'A'), source('email', 'B')] })).toEqual(['A destination field can be mapped only once']);
  });

  it('a field picker selection names at least one field', () => {
    expect(messages(MappingSchema, { fields: [source('email')], selectedFields: [] })).toEqual(['Select at least one field']);
    expect(messages(MappingSchema, { fields: [source('email')], selectedFields: ['email'] })).toEqual([]);
  });

  it('the field picker\'s rule against the destination: a selection is required above 200 fields', () => {
    expect(fieldSelectionProblem(14, undefined)).toBeNull();
    expect(fieldSelectionProblem(200, null)).toBeNull();
    expect(fieldSelectionProblem(201, undefined)).toBe('Select the fields to map: the destination has more than 200 fields');
    expect(fieldSelectionProblem(201, ['email'])).toBeNull();
    expect(fieldSelectionProblem(14, [])).toBe('Select at least one field');
    expect(fieldSelectionProblem(500, [])).toBe('Select at least one field');
  });
});

describe('transform steps', () => {
  const step = (s: unknown) => messages(TransformStepSchema, s);

  it('concatenation takes 2 to 10 fields, with one of SPEC\'s separators', () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `F${i}`);
    expect(step({ kind: 'concatenate', fields: fields(1), separator: 'space' })).toEqual(['Concatenation needs 2 to 10 fields']);
    expect(step({ kind: 'concatenate', fields: [], separator: 'space' })).toEqual(['Concatenation needs 2 to 10 fields']);
    expect(step({ kind: 'concatenate', fields: fields(11), separator: 'space' })).toEqual(['Concatenation needs 2 to 10 fields']);
    expect(step({ kind: 'concatenate', fields: fields(2), separator: 'space' })).toEqual([]);
    expect(step({ kind: 'concatenate', fields: fields(10), separator: 'space' })).toEqual([]);
    expect(step({ kind: 'concatenate', fields: ['A', ''], separator: 'space' })).toEqual(['Choose a field']);
    for (const separator of SEPARATOR_NAMES) expect(step({ kind: 'concatenate', fields: fields(2), separator }), separator).toEqual([]);
    expect(step({ kind: 'concatenate', fields: fields(2), separator: 'pipe' })).toHaveLength(1);
  });

  it('shorten needs a numeric character limit', () => {
    for (const limit of [undefined, '', '5', 0, -1, 2.5, Number.NaN]) {
      expect(step({ kind: 'shorten', limit }), String(limit)).toEqual(['Shorten needs a numeric character limit']);
    }
    expect(step({ kind: 'shorten', limit: 1 })).toEqual([]);
  });

  it('split needs a non-empty splitter and a position greater than 0', () => {
    expect(step({ kind: 'split', splitter: '', position: 1 })).toEqual(['Split needs a splitter']);
    expect(step({ kind: 'split', splitter: ',', position: 0 })).toEqual(['Split position must be greater than 0']);
    expect(step({ kind: 'split', splitter: ',', position: -2 })).toEqual(['Split position must be greater than 0']);
    expect(step({ kind: 'split', splitter: ',', position: 1.5 })).toEqual(['Split position must be greater than 0']);
    expect(step({ kind: 'split', splitter: ',', position: '' })).toEqual(['Split position must be greater than 0']);
    expect(step({ kind: 'split', splitter: ' ', position: 1 })).toEqual([]);
  });

  it('date adjustment is greater than 0, in SPEC\'s units', () => {
    expect(step({ kind: 'adjust-date', amount: 0, unit: 'day', direction: 'add' })).toEqual(['Date adjustment must be greater than 0']);
    expect(step({ kind: 'adjust-date', amount: -3, unit: 'day', direction: 'subtract' })).toEqual(['Date adjustment must be greater than 0']);
    expect(step({ kind: 'adjust-date', amount: '', unit: 'day', direction: 'add' })).toEqual(['Date adjustment must be greater than 0']);
    for (const unit of ['year', 'month', 'week', 'day', 'hour', 'minute']) {
      expect(step({ kind: 'adjust-date', amount: 1, unit, direction: 'add' }), unit).toEqual([]);
    }
    expect(step({ kind: 'adjust-date', amount: 1, unit: 'second', direction: 'add' })).toHaveLength(1);
    expect(step({ kind: 'adjust-date', amount: 1, unit: 'day', direction: 'sideways' })).toHaveLength(1);
  });

  it('rounding is up, down or half up, from ones to thousandths', () => {
    for (const mode of ['up', 'down', 'half-up']) {
      for (const place of ['ones', 'tenths', 'hundredths', 'thousandths']) expect(step({ kind: 'round', mode, place }), `${mode} ${place}`).toEqual([]);
    }
    expect(step({ kind: 'round', mode: 'half-even', place: 'ones' })).toHaveLength(1);
    expect(step({ kind: 'round', mode: 'up', place: 'tens' })).toHaveLength(1);
  });

  it('casing is upper, lower, title or sentence', () => {
    for (const to of ['upper', 'lower', 'title', 'sentence']) expect(step({ kind: 'case', to }), to).toEqual([]);
    expect(step({ kind: 'case', to: 'camel' })).toHaveLength(1);
  });

  it('the part gives each destination field one list of at most 20 steps', () => {
    const upper = { kind: 'case', to: 'upper' };
    expect(messages(TransformSchema, { fields: [] })).toEqual([]);
    expect(messages(TransformSchema, { fields: [{ destination: 'a', steps: [] }] })).toEqual([]);
    expect(messages(TransformSchema, { fields: [{ destination: 'a', steps: [upper] }, { destination: 'a', steps: [upper] }] })).toEqual(['A destination field has one list of transforms']);
    expect(messages(TransformSchema, { fields: [{ destination: 'a', steps: Array(21).fill(upper) }] })).toHaveLength(1);
    expect(messages(TransformSchema, { fields: [{ destination: 'a', steps: [{ kind: 'split', splitter: '', position: 0 }] }] }))
      .toEqual(['Split needs a splitter', 'Split position must be greater than 0']);
  });
});

describe('validation rules', () => {
  const rule = (r: unknown) => messages(ValidationRuleSchema, r);

  it('each names the custom validation-exceptions bucket a failing record goes to', () => {
    for (const r of ['required', 'email', 'phone']) {
      expect(rule({ destination: 'email', rule: r, bucket: 'Bad e-mail 2' }), r).toEqual([]);
      expect(rule({ destination: 'email', rule: r, bucket: '' }), r).toEqual(['Name the bucket failing records go to']);
      expect(rule({ destination: 'email', rule: r, bucket: '   ' }), r).toEqual(['Name the bucket failing records go to']);
    }
  });

  it('a bucket name has at most 40 letters, digits, spaces, dashes or underscores', () => {
    const bad = 'A bucket name has at most 40 letters, digits, spaces, dashes or underscores';
    expect(rule({ destination: 'e', rule: 'required', bucket: 'a'.repeat(40) })).toEqual([]);
    expect(rule({ destination: 'e', rule: 'required', bucket: 'a'.repeat(41) })).toEqual([bad]);
    expect(rule({ destination: 'e', rule: 'required', bucket: 'Bad/e-mail' })).toEqual([bad]);
    expect(rule({ destination: 'e', rule: 'required', bucket: '-leading dash' })).toEqual([bad]);
    expect(rule({ destination: 'e', rule: 'required', bucket: 'Écoles' })).toEqual([bad]);
    expect(v.parse(ValidationRuleSchema, { destination: 'e', rule: 'required', bucket: '  Missing_names  ' }).bucket).toBe('Missing_names');
  });

  it('length needs a minimum or a maximum, in order, as whole numbers', () => {
    const base = { destination: 'postalCode', rule: 'length', bucket: 'Bad postal codes' };
    expect(rule(base)).toEqual(['Give a minimum or a maximum length']);
    expect(rule({ ...base, min: 6, max: 5 })).toEqual(['The minimum length must not exceed the maximum']);
    expect(rule({ ...base, min: 5, max: 5 })).toEqual([]);
    expect(rule({ ...base, min: 0 })).toEqual([]);
    expect(rule({ ...base, max: 10 })).toEqual([]);
    expect(rule({ ...base, min: -1 })).toEqual(['A length is a whole number of characters']);
    expect(rule({ ...base, max: 0 })).toEqual(['A length is a whole number of characters']);
    expect(rule({ ...base, max: 2.5 })).toEqual(['A length is a whole number of characters']);
  });

  it('one of lists at least one allowed value', () => {
    const base = { destination: 'state', rule: 'one-of', bucket: 'Unknown states' };
    expect(rule({ ...base, values: [] })).toEqual(['List at least one allowed value']);
    expect(rule({ ...base, values: ['MA', 'NY'] })).toEqual([]);
  });

  it('the part is a list of rules', () => {
    expect(messages(ValidationSchema, { rules: [] })).toEqual([]);
    expect(messages(ValidationSchema, { rules: [{ destination: 'email', rule: 'email', bucket: '' }] })).toEqual(['Name the bucket failing records go to']);
    expect(messages(ValidationSchema, { rules: [{ destination: 'email', rule: 'shouting', bucket: 'x' }] })).toHaveLength(1);
  });
});

describe('summary fields', () => {
  it('are at most 20 destination fields shown for each record in the buckets', () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`);
    expect(messages(SummaryFieldsSchema, { fields: [] })).toEqual([]);
    expect(messages(SummaryFieldsSchema, { fields: fields(20) })).toEqual([]);
    expect(messages(SummaryFieldsSchema, { fields: fields(21) })).toEqual(['Choose at most 20 summary fields']);
    expect(messages(SummaryFieldsSchema, { fields: [''] })).toEqual(['Choose a field']);
  });
});
