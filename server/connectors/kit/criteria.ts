/**
 * How a candidate a vendor's search answered is held to one criterion of a matching scenario, once
 * both sides are written alike (trimmed and lower-cased, digits only for a phone): the vendors'
 * searches match more loosely (by token, by prefix, without regard to punctuation), and a
 * scenario's candidates must meet every criterion as Tributary means it.
 */
import type { SearchOperator } from '../connector.ts';

/** a value as compared: text, trimmed, without regard to case */
export const lowered = (v: unknown): string => (v === undefined || v === null ? '' : String(v)).trim().toLowerCase();

export function meets(have: string, want: string, operator: SearchOperator | undefined): boolean {
  if (operator === 'contains') return have.includes(want);
  if (operator === 'starts-with') return have.startsWith(want);
  return have === want;
}

/** Every criterion holds on the fields of a record a vendor's search answered (compared as `lowered` writes them). */
export function holdsAll(fields: Record<string, unknown>, criteria: { field: string; operator?: SearchOperator; value: string }[]): boolean {
  return criteria.every((c) => {
    const want = lowered(c.value);
    return !!want && meets(lowered(fields[c.field]), want, c.operator);
  });
}

/**
 * Why a vendor that finds its people by e-mail address only cannot answer these scenarios (each
 * must compare its e-mail field, or its id), or null when every scenario can be answered.
 */
export function emailOnlyProblem(
  name: string, what: string, emailField: string, idField: string,
  scenarios: { name: string; fields: string[] }[],
): string | null {
  for (const s of scenarios) {
    if (!s.fields.includes(emailField) && !s.fields.includes(idField)) {
      return `${name} finds ${what} by e-mail address only: the scenario "${s.name}" compares ${s.fields.join(', ') || 'nothing'}. Add the e-mail address to it.`;
    }
  }
  return null;
}
