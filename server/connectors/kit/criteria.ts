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
