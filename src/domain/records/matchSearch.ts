/**
 * Which destination fields a Match Search query is compared with. One query is typed for all the
 * formula's searchable fields: a name, an e-mail or a city is looked for in the text fields, a
 * phone number also in the phone fields, an amount in the number fields, a YYYY-MM-DD date in the
 * date fields. A field the query cannot be a value of is skipped, never refused: "Ada" on a formula
 * that maps a phone finds the Adas.
 */
import type { FieldInfo } from '../api/integrations.ts';

const isDigit = (ch: string) => ch >= '0' && ch <= '9';
/** the characters a written phone number holds besides digits */
const PHONE_PUNCTUATION = new Set([' ', '+', '(', ')', '-', '.']);

/** digits written as a phone number is (spaces, dashes, brackets, a leading +) */
function looksLikePhone(q: string): boolean {
  let digits = 0;
  for (const ch of q) {
    if (isDigit(ch)) digits++;
    else if (!PHONE_PUNCTUATION.has(ch)) return false;
  }
  return digits > 0;
}

const NUMBER = /^-?\d+(?:\.\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const isIsoDate = (q: string) => ISO_DATE.test(q) && !Number.isNaN(Date.parse(`${q}T00:00:00Z`)) && new Date(`${q}T00:00:00Z`).toISOString().startsWith(q);

/** Whether a query can be (part of) a value of a field of this type. */
export function queryFitsField(type: FieldInfo['type'], query: string): boolean {
  const q = query.trim();
  switch (type) {
    case 'string': case 'email': return true;
    case 'phone': return looksLikePhone(q);
    case 'number': return NUMBER.test(q);
    case 'date': return isIsoDate(q);
    case 'datetime': return isIsoDate(q.slice(0, 10)) && (q.length === 10 || q[10] === 'T');
    case 'boolean': return q === 'true' || q === 'false';
    default: return false;
  }
}

/** The fields a Match Search query is looked for in, in the order given. */
export function matchSearchFields(fields: readonly Pick<FieldInfo, 'name' | 'type'>[], query: string): string[] {
  return fields.filter((f) => queryFitsField(f.type, query)).map((f) => f.name);
}
