/**
 * Every text value the API accepts has a length limit (DESIGN.md section 6), put on every request
 * body and query by `endpoint()` (src/domain/api/textCap.ts): a new endpoint, or a new field of an
 * old one, is capped without a line of its own. And the e-mail shape check reads a hostile
 * address in linear time.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as v from 'valibot';
import { recordsService } from '../../src/domain/api/records.ts';
import { SERVICES } from '../../src/domain/api/services.ts';
import { capText, TEXT_MAX_LENGTH, textTooLong, uncappedText } from '../../src/domain/api/textCap.ts';
import { KEY_FIELD_MAX } from '../../src/domain/connectors/fields.ts';
import { looksLikeEmail } from '../../src/domain/emailAddress.ts';

const messages = (schema: v.GenericSchema, value: unknown) => v.safeParse(schema, value).issues?.map((i) => i.message) ?? [];

describe('the cap on every text value', () => {
  it('holds for every string of every endpoint\'s body and query, at any depth', () => {
    const open: string[] = [];
    for (const service of SERVICES) {
      for (const [name, e] of Object.entries(service.endpoints)) {
        if (e.body) open.push(...uncappedText(e.body, `${service.basePath} ${name} body`));
        if (e.query) open.push(...uncappedText(e.query, `${service.basePath} ${name} query`));
      }
    }
    expect(open).toEqual([]);
  });

  it('is what makes them capped: the same schemas without it take text of any length', () => {
    expect(uncappedText(v.object({ a: v.string(), b: v.array(v.pipe(v.string(), v.trim(), v.maxLength(5))), c: v.record(v.string(), v.unknown()) })))
      .toEqual(['(body).a: text without a limit', '(body).b[]: text without a limit checked first', '(body).c key: text without a limit', '(body).c.*: unknown']);
  });

  it('refuses an inline edit past 1,000 characters with a clear message, and takes 1,000', () => {
    const edit = recordsService.endpoints.edit.body!;
    expect(messages(edit, { values: { notes: 'x'.repeat(TEXT_MAX_LENGTH + 1) } })).toEqual([textTooLong(TEXT_MAX_LENGTH)]);
    expect(messages(edit, { values: { notes: 'x'.repeat(TEXT_MAX_LENGTH) } })).toEqual([]);
    expect(messages(edit, { values: { ['k'.repeat(TEXT_MAX_LENGTH + 1)]: 'x' } })).toEqual([textTooLong(TEXT_MAX_LENGTH)]);
    expect(textTooLong(TEXT_MAX_LENGTH)).toBe('A text value can be at most 1,000 characters.');
  });

  it('checks the length before anything else of the field runs, and keeps a longer limit a field declares', () => {
    let checked = 0;
    const field = v.pipe(v.string(), v.trim(), v.regex(/^a+$/), v.check(() => { checked++; return true; }));
    const capped = capText(v.object({ field, key: v.pipe(v.string(), v.maxLength(KEY_FIELD_MAX)), short: v.pipe(v.string(), v.maxLength(5, 'Five at most.')) }));
    const fine = { field: 'aaa', key: 'k', short: 'abc' };
    expect(messages(capped, { ...fine, field: 'a'.repeat(1_000_000) })).toEqual([textTooLong(TEXT_MAX_LENGTH)]);
    expect(checked).toBe(0);
    expect(messages(capped, { ...fine, key: 'k'.repeat(KEY_FIELD_MAX) })).toEqual([]);
    expect(messages(capped, { ...fine, key: 'k'.repeat(KEY_FIELD_MAX + 1) })).toEqual([textTooLong(KEY_FIELD_MAX)]);
    expect(messages(capped, { ...fine, short: 'abcdef' })).toEqual(['Five at most.']);
    expect(v.parse(capped, { ...fine, field: '  aaa  ' })).toEqual(fine);
  });
});

describe('the e-mail shape check', () => {
  const REGEX = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

  it('accepts what the old pattern accepted, and nothing else', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('a', '@', '.', ' ', '\t', 'b'), maxLength: 12 }), (text) => {
      expect(looksLikeEmail(text)).toBe(REGEX.test(text));
    }), { numRuns: 5000 });
  });

  it('reads a megabyte of a@a.a.a...@ at once', () => {
    const hostile = `a@${'a.'.repeat(500_000)}@`;
    const started = performance.now();
    expect(looksLikeEmail(hostile)).toBe(false);
    expect(looksLikeEmail(`a@${'a.'.repeat(500_000)}a`)).toBe(true);
    expect(performance.now() - started).toBeLessThan(100);
  });
});
