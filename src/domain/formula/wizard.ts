/**
 * The Formula Wizard's steps (SPEC.md section 2): eleven in order, four of them conditional. The
 * wizard machine's guards and the dialog's stepper read this one function.
 */

export const WIZARD_STEPS = [
  'data-sources', 'formula-types', 'additional-settings-source', 'additional-settings-destination', 'mapping', 'matching',
  'routing', 'custom-routing', 'scheduling', 'review', 'processing',
] as const;
export type WizardStep = (typeof WIZARD_STEPS)[number];

export const WIZARD_STEP_TITLES: Record<WizardStep, string> = {
  'data-sources': 'Data sources',
  'formula-types': 'Formula type',
  'additional-settings-source': 'Source settings',
  'additional-settings-destination': 'Destination settings',
  'mapping': 'Mapping',
  'matching': 'Matching',
  'routing': 'Routing',
  'custom-routing': 'Custom routing',
  'scheduling': 'Scheduling',
  'review': 'Review',
  'processing': 'Processing',
};

/** What decides which steps a formula has. */
export interface WizardConditions {
  /** the source system has additional settings as a source */
  sourceHasSettings: boolean;
  /** the destination system has additional settings as a destination */
  destinationHasSettings: boolean;
  /** the custom-routing flag is on for this formula */
  customRouting: boolean;
  usesFileUpload: boolean;
  isDraft: boolean;
}

export function wizardSteps(c: WizardConditions): WizardStep[] {
  return WIZARD_STEPS.filter((step) => {
    switch (step) {
      case 'additional-settings-source': return c.sourceHasSettings;
      case 'additional-settings-destination': return c.destinationHasSettings;
      case 'routing': return !c.customRouting;
      case 'custom-routing': return c.customRouting;
      case 'scheduling': return !c.usesFileUpload;
      case 'processing': return c.isDraft;
      default: return true;
    }
  });
}

export const isWizardStep = (s: unknown): s is WizardStep => typeof s === 'string' && (WIZARD_STEPS as readonly string[]).includes(s);

/** The step after (or before) this one for these conditions; null past either end. */
export function nextStep(c: WizardConditions, from: WizardStep, direction: 1 | -1 = 1): WizardStep | null {
  const steps = wizardSteps(c);
  const i = steps.indexOf(from);
  if (i < 0) return steps[0] ?? null;
  return steps[i + direction] ?? null;
}

/** What of a formula tells whether a step of it is set up. */
export interface FormulaSetUp {
  isDraft: boolean;
  sourceDataSource: { object: string } | null;
  firstDestinationDataSource: { object: string } | null;
  /** the parts saved */
  parts: readonly string[];
}

/** The part a step saves, for the steps that save one. */
const STEP_PARTS: Partial<Record<WizardStep, string>> = {
  'mapping': 'mapping', 'matching': 'matching', 'routing': 'routing', 'custom-routing': 'routing', 'scheduling': 'schedule', 'processing': 'autosend',
};

/**
 * Whether a step of the formula is set up: its data sources chosen, their objects chosen, its part
 * saved. Additional settings have defaults and the review saves nothing: they are set up once the
 * steps before them are.
 */
export function isStepSetUp(step: WizardStep, f: FormulaSetUp): boolean {
  if (step === 'data-sources') return !!f.sourceDataSource && !!f.firstDestinationDataSource;
  if (step === 'formula-types') return !!f.sourceDataSource?.object && !!f.firstDestinationDataSource?.object;
  const part = STEP_PARTS[step];
  return part ? f.parts.includes(part) : true;
}

/**
 * Whether the wizard's stepper marks a step done: its own part saved or its choice made, whatever
 * step is open. Additional settings have defaults: done once the objects are chosen. The review
 * saves nothing, and processing activates: both done once the formula is live.
 */
export function isStepMarkedDone(step: WizardStep, f: FormulaSetUp): boolean {
  // processing is where a draft is activated (the routing step saves its autosend part before it): done once live
  if (step === 'review' || step === 'processing') return !f.isDraft;
  if (step === 'additional-settings-source' || step === 'additional-settings-destination') return isStepSetUp('formula-types', f);
  return isStepSetUp(step, f);
}

/** Where editing a formula opens: a draft at its first step not set up (else its review), a live formula at its review. */
export function editStep(f: FormulaSetUp, c: WizardConditions): WizardStep {
  if (!f.isDraft) return 'review';
  return wizardSteps(c).find((s) => s !== 'review' && s !== 'processing' && !isStepSetUp(s, f)) ?? 'review';
}

type End = { object: string; hasAdditionalSettings: boolean } | null;

/**
 * Where Edit opens the wizard on a formula as the lists show it (custom routing aside: its step
 * saves the same part as routing's). Here rather than beside the wizard machine, so a list's
 * screen does not load the wizard to know it.
 */
export const editStepOf = (f: FormulaSetUp & { usesFileUpload: boolean; sourceDataSource: End; firstDestinationDataSource: End }) => editStep(f, {
  sourceHasSettings: f.sourceDataSource?.hasAdditionalSettings ?? false,
  destinationHasSettings: f.firstDestinationDataSource?.hasAdditionalSettings ?? false,
  customRouting: false, usesFileUpload: f.usesFileUpload, isDraft: f.isDraft,
});

