/**
 * The formula parts by name, with the name users read, and the catalogue messages of each part's
 * failures. Apart from the part schemas (parts.ts, which takes its labels from here) so the error
 * catalogue, which every screen loads, carries no schema.
 */

export const PART_LABELS = {
  mapping: 'Mapping',
  transform: 'Transformations',
  validation: 'Validation rules',
  'summary-fields': 'Summary fields',
  matching: 'Record Match Search',
  routing: 'Routing',
  schedule: 'Scheduling',
  autosend: 'Autosend',
  gift: 'Gift from each row',
} as const;
type PartName = keyof typeof PART_LABELS;

/** The operations of the part endpoints, each with its own failure title. */
export const PART_OPERATIONS = ['get', 'upsert', 'delete'] as const;
export type PartOperation = (typeof PART_OPERATIONS)[number];
export type PartProblemTitle = `${PartName}-${PartOperation}-failed`;

export const partProblemTitle = (part: PartName, op: PartOperation): PartProblemTitle => `${part}-${op}-failed`;

const OPERATION_TEXT: Record<PartOperation, (label: string) => string> = {
  get: (label) => `Error loading ${label}`,
  upsert: (label) => `${label} could not be saved.`,
  delete: (label) => `${label} could not be deleted.`,
};

/** The catalogue messages of every part's failures, derived from the part list (SPEC.md section 8). */
export const PART_PROBLEM_MESSAGES = Object.fromEntries(
  (Object.keys(PART_LABELS) as PartName[]).flatMap((part) => PART_OPERATIONS.map((op) => [partProblemTitle(part, op), OPERATION_TEXT[op](PART_LABELS[part])])),
) as Record<PartProblemTitle, string>;
