/**
 * SOQL built from values that come from records: every value goes into the query as a literal of
 * its field's type, never as text of the query. Strings are quoted with SOQL's escape sequences
 * (`\'`, `\\`, `\n`, ... and, inside LIKE, `\%` and `\_`); numbers, booleans, dates and date-times
 * must have their exact form or the criterion cannot match (it is then left out, and nothing is
 * asked); field names must be ones the object's describe lists.
 */
import type { SearchCriterion } from '../connector.ts';

/** A field as describe answers it (the parts read here). */
export interface SfField {
  name: string; label: string; type: string; custom?: boolean; nillable?: boolean; createable?: boolean; updateable?: boolean;
  defaultedOnCreate?: boolean; filterable?: boolean; externalId?: boolean; idLookup?: boolean; calculated?: boolean;
  referenceTo?: string[]; relationshipName?: string | null; compoundFieldName?: string | null;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** A SOQL string literal, quoted. With `like`, % and _ are literal characters too. */
export function soqlString(value: string, like = false): string {
  let out = '';
  for (const ch of value) out += ESCAPES[ch] ?? (like && (ch === '%' || ch === '_') ? `\\${ch}` : ch);
  return `'${out}'`;
}

const NUMERIC = new Set(['int', 'double', 'currency', 'percent', 'long']);

/** A value as a literal for a field of this type, or null when it cannot be one. */
export function soqlLiteral(field: SfField, raw: unknown): string | null {
  const value = typeof raw === 'string' ? raw.trim() : raw;
  if (value === null || value === undefined || value === '') return null;
  if (NUMERIC.has(field.type)) {
    const n = typeof value === 'number' ? value : Number(String(value).replace(/[,$\s]/g, ''));
    return Number.isFinite(n) ? String(n) : null;
  }
  if (field.type === 'boolean') {
    const v = String(value).toLowerCase();
    return v === 'true' || v === 'yes' || v === '1' ? 'true' : v === 'false' || v === 'no' || v === '0' ? 'false' : null;
  }
  if (field.type === 'date') {
    const m = /^(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(String(value));
    return m ? m[1]! : null;
  }
  if (field.type === 'datetime') return soqlDateTime(String(value));
  return soqlString(String(value));
}

/** A date-time literal (to the second, UTC): 2026-11-01T09:30:00Z. */
export function soqlDateTime(value: string): string | null {
  const ms = Date.parse(normalizeDateTime(value));
  return Number.isNaN(ms) ? null : `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** Salesforce's date-times end in +0000: as ISO 8601 with a colon, which Date.parse reads everywhere. */
export const normalizeDateTime = (v: string) => v.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');

/** The object's fields that can be selected as plain values (compound addresses and blobs are read through their parts). */
export const selectable = (fields: SfField[]) => fields.filter((f) => f.type !== 'address' && f.type !== 'location' && f.type !== 'base64');

/** One criterion as a condition, or null when its value cannot be a literal of the field's type. */
export function condition(field: SfField, c: SearchCriterion): string | null {
  const op = c.operator ?? 'equals';
  if (op === 'equals') {
    const literal = soqlLiteral(field, c.value);
    return literal === null ? null : `${field.name} = ${literal}`;
  }
  if (NUMERIC.has(field.type) || field.type === 'boolean' || field.type === 'date' || field.type === 'datetime') return null;
  const v = c.value.trim();
  if (!v) return null;
  const pattern = soqlString(v, true).slice(1, -1);
  return `${field.name} LIKE '${op === 'contains' ? '%' : ''}${pattern}%'`;
}

/** Checks an object or field name before it is written into a query (they come from describe, but are checked all the same). */
export function isApiName(name: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_]{0,79}$/.test(name);
}
