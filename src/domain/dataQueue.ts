/**
 * The Data Queue's rules (SPEC.md sections 5, 8 and 9): a user's tabs, at most 5, each named with
 * at most 40 letters, digits, spaces and dashes; the order of a tab's cards; and which record
 * counts a formula card shows, each leading to its bucket screen. One place for the browser's
 * form, the tabs machine and the server.
 */
import * as v from 'valibot';
import { viewCounts, type RecordGroup, type RecordView } from './records/query.ts';
export type { RecordGroup } from './records/query.ts';

export const MAX_TABS = 5;
export const TAB_NAME_MAX_LENGTH = 40;
/** letters and digits (any script), spaces and dashes */
export const TAB_NAME_PATTERN = /^[\p{L}\p{N} -]+$/u;

export const DATA_QUEUE_MESSAGES = {
  tabName: 'Maximum of 40 alphanumeric characters, no special characters allowed',
  tabNameRequired: 'Enter a name for the tab.',
  tabLimit: `You can have at most ${MAX_TABS} tabs.`,
  orderFailed: 'Update for current tab cards order failed, restoring previous order',
} as const;

/** A tab's name as typed: trimmed, composed (so an accented letter is one letter), then checked. */
export const TabNameSchema = v.pipe(
  v.string(),
  v.trim(),
  v.transform((s) => s.normalize('NFC')),
  v.nonEmpty(DATA_QUEUE_MESSAGES.tabNameRequired),
  // one check, so a name that breaks both limits gets the message once, and an empty one only 'required'
  v.check((s) => s === '' || ([...s].length <= TAB_NAME_MAX_LENGTH && TAB_NAME_PATTERN.test(s)), DATA_QUEUE_MESSAGES.tabName),
);

/** What is wrong with a tab name, or null when it may be saved. */
export function tabNameError(name: string): string | null {
  const out = v.safeParse(TabNameSchema, name);
  return out.success ? null : out.issues[0].message;
}

/** Whether another tab may be added beside `count` tabs. */
export const mayAddTab = (count: number) => count < MAX_TABS;

/** `items` with the one at `from` moved to `to` (both clamped to the list). */
export function moveItem<T>(items: readonly T[], from: number, to: number): T[] {
  const out = [...items];
  if (from < 0 || from >= out.length) return out;
  const [item] = out.splice(from, 1);
  out.splice(Math.max(0, Math.min(to, out.length)), 0, item!);
  return out;
}

/** Whether `next` holds exactly the ids of `current`, each once, in any order. */
export function isSameSet(current: readonly string[], next: readonly string[]): boolean {
  if (current.length !== next.length || new Set(next).size !== next.length) return false;
  const have = new Set(current);
  return next.every((id) => have.has(id));
}

/** The bucket screens a formula card counts records for, in the card's order (SPEC.md section 2's routes). */
export const CARD_COUNTS = [
  { view: 'ready-records', label: 'Ready' },
  { view: 'needs-attention', label: 'Needs Attention' },
  { view: 'new-records', label: 'New' },
  { view: 'exception', label: 'Exceptions' },
  { view: 'formula-exceptions', label: 'Formula exceptions' },
  { view: 'related-records', label: 'Related records' },
] as const satisfies readonly { view: RecordView; label: string }[];
export type CardCountView = (typeof CARD_COUNTS)[number]['view'];

/** A custom validation bucket's count is keyed by this prefix and the bucket's name. */
export const VALIDATION_COUNT_PREFIX = 'validation-exceptions/';

/**
 * The counts a card shows, from the formula's record groups: each card view by RECORD_VIEWS'
 * definition (the same one the bucket screens list by), and each custom validation bucket.
 */
export function cardCounts(groups: readonly RecordGroup[]): Record<string, number> {
  const { views, customBuckets } = viewCounts(groups);
  const out: Record<string, number> = {};
  for (const { view } of CARD_COUNTS) out[view] = views[view];
  for (const [name, count] of customBuckets) out[`${VALIDATION_COUNT_PREFIX}${name}`] = count;
  return out;
}
