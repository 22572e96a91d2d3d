/**
 * One row, two objects (issue 28, point 10): the record a formula may also write from each row
 * beside its own, in the same destination. Today the Sandbox CRM's constituents, with a gift: a
 * supporters file that carries a gift (amount, date, fund) writes the constituent and its gift.
 *
 * The companion record of a row is stored beside the row's record with the source key
 * `<row's key>#gift`; it waits in relationship-match until the row's record is sent, and is then
 * written with that record's id in its link field.
 */
import type { SystemId } from '../connectors/types.ts';

export interface Companion {
  /** the destination object the companion is written to */
  object: string;
  /** what it is called: 'gift' */
  label: string;
  /** the companion's field that takes the id of the row's record (never mapped: the engine fills it) */
  link: string;
  /** what the row's record is called: 'constituent' */
  parentLabel: string;
  /** companion fields a new record needs mapped */
  required: readonly string[];
  /** fields that together say two companions of one parent are the same (a second upload of the row finds its gift) */
  sameBy: readonly string[];
  /** companion fields that are never mapped: the link, and the other ways of naming the parent */
  unmapped: readonly string[];
}

const COMPANIONS: Partial<Record<SystemId, Record<string, Companion>>> = {
  'sandbox-crm': {
    constituents: {
      object: 'gifts', label: 'gift', link: 'constituentId', parentLabel: 'constituent',
      required: ['amount', 'date'], sameBy: ['amount', 'date', 'fund'], unmapped: ['constituentId', 'constituentLookupId', 'lookupId'],
    },
  },
};

/** The companion a formula writing `object` of `system` may also write from each row, or null. */
export function companionOf(system: string | null | undefined, object: string | null | undefined): Companion | null {
  if (!system || !object) return null;
  return COMPANIONS[system as SystemId]?.[object] ?? null;
}

/** The source key of a row's companion record, and back. */
export const COMPANION_KEY_SUFFIX = '#gift';
export const companionKey = (sourceKey: string) => `${sourceKey}${COMPANION_KEY_SUFFIX}`;
export const isCompanionKey = (sourceKey: string) => sourceKey.endsWith(COMPANION_KEY_SUFFIX);
export const parentKeyOf = (sourceKey: string) => sourceKey.slice(0, -COMPANION_KEY_SUFFIX.length);

/** What a gift part is refused for, beyond its schema: a required field not mapped, or a field the engine fills. Null when fine. */
export function companionMappingProblem(companion: Companion, fields: readonly { destination: string; kind: string }[], labelOf: (name: string) => string = (n) => n): string | null {
  const mapped = new Set(fields.filter((f) => f.kind !== 'ignored').map((f) => f.destination));
  const filled = companion.unmapped.filter((f) => mapped.has(f));
  if (filled.length) return `${filled.map(labelOf).join(', ')} ${filled.length === 1 ? 'is' : 'are'} filled from the ${companion.parentLabel} of the same row: leave ${filled.length === 1 ? 'it' : 'them'} out.`;
  const missing = companion.required.filter((f) => !mapped.has(f));
  if (missing.length) return `A ${companion.label} needs ${missing.map(labelOf).join(' and ')} mapped.`;
  return null;
}

/** The gift fields a row can give, with the words the wizard and the review use (the Sandbox CRM's gift fields). */
export const GIFT_FIELD_LABELS: Record<string, string> = {
  amount: 'Amount', date: 'Date', fund: 'Fund', type: 'Type', campaign: 'Campaign', appeal: 'Appeal', paymentMethod: 'Payment method',
};
