/** The wizard's step sequence (SPEC.md section 2) for every one of the 32 combinations of its five conditions. */
import { describe, expect, it } from 'vitest';
import { editStep, isStepMarkedDone, isStepSetUp, nextStep, wizardSteps, WIZARD_STEPS, type FormulaSetUp, type WizardConditions } from '../../src/domain/formula/wizard.ts';

const KEYS = ['sourceHasSettings', 'destinationHasSettings', 'customRouting', 'usesFileUpload', 'isDraft'] as const;
const combinations: WizardConditions[] = Array.from({ length: 32 }, (_, n) =>
  Object.fromEntries(KEYS.map((k, i) => [k, Boolean(n & (1 << i))])) as unknown as WizardConditions);

/** SPEC.md's list, read literally: each step with its condition. */
function expected(c: WizardConditions): string[] {
  return [
    'data-sources',
    'formula-types',
    ...(c.sourceHasSettings ? ['additional-settings-source'] : []),
    ...(c.destinationHasSettings ? ['additional-settings-destination'] : []),
    'mapping',
    'matching',
    ...(c.customRouting ? ['custom-routing'] : ['routing']),
    ...(c.usesFileUpload ? [] : ['scheduling']),
    'review',
    ...(c.isDraft ? ['processing'] : []),
  ];
}

describe('the wizard steps', () => {
  it('has 32 distinct combinations', () => {
    expect(new Set(combinations.map((c) => JSON.stringify(c))).size).toBe(32);
  });

  it.each(combinations.map((c) => [KEYS.filter((k) => c[k]).join(', ') || 'none', c] as const))('with %s', (_name, c) => {
    const steps = wizardSteps(c);
    expect(steps).toEqual(expected(c));
    // in SPEC's order, never both routing steps
    expect(steps).toEqual(WIZARD_STEPS.filter((s) => steps.includes(s)));
    expect(steps.includes('routing') !== steps.includes('custom-routing')).toBe(true);
    // walking forward from the first step visits every step once, and back again
    const walked = [steps[0]!];
    for (let s = nextStep(c, steps[0]!); s; s = nextStep(c, s)) walked.push(s);
    expect(walked).toEqual(steps);
    expect(nextStep(c, steps.at(-1)!)).toBeNull();
    expect(nextStep(c, steps[0]!, -1)).toBeNull();
    expect(nextStep(c, steps[1]!, -1)).toBe(steps[0]);
  });

  it('goes to the first step from a step the formula does not have', () => {
    const c = combinations[0]!;
    expect(nextStep(c, 'additional-settings-source')).toBe('data-sources');
  });
});

describe('where editing a formula opens', () => {
  const c: WizardConditions = { sourceHasSettings: false, destinationHasSettings: true, customRouting: false, usesFileUpload: false, isDraft: true };
  const end = (object: string) => ({ object });
  const draft = (over: Partial<FormulaSetUp>): FormulaSetUp => ({ isDraft: true, sourceDataSource: null, firstDestinationDataSource: null, parts: [], ...over });

  it('opens a draft at its first step not set up', () => {
    expect(editStep(draft({}), c)).toBe('data-sources');
    expect(editStep(draft({ sourceDataSource: end(''), firstDestinationDataSource: end('') }), c)).toBe('formula-types');
    const chosen = { sourceDataSource: end('supporters.csv'), firstDestinationDataSource: end('constituents') };
    // additional settings have defaults: the mapping is next
    expect(editStep(draft(chosen), c)).toBe('mapping');
    expect(editStep(draft({ ...chosen, parts: ['mapping'] }), c)).toBe('matching');
    expect(editStep(draft({ ...chosen, parts: ['mapping', 'matching', 'routing'] }), c)).toBe('scheduling');
    // everything set up: the review, to check and activate
    expect(editStep(draft({ ...chosen, parts: ['mapping', 'matching', 'routing', 'schedule'] }), c)).toBe('review');
  });

  it('opens a live formula at its review', () => {
    expect(editStep({ ...draft({}), isDraft: false }, { ...c, isDraft: false })).toBe('review');
  });

  it('marks done in the stepper only the steps set up, wherever the open step is', () => {
    const chosen = { sourceDataSource: end('supporters.csv'), firstDestinationDataSource: end('constituents') };
    const marked = (f: FormulaSetUp) => WIZARD_STEPS.filter((s) => isStepMarkedDone(s, f));
    expect(marked(draft({}))).toEqual([]);
    // additional settings have defaults: done with the objects; matching saved before mapping is marked, mapping is not
    expect(marked(draft({ ...chosen, parts: ['matching'] }))).toEqual(['data-sources', 'formula-types', 'additional-settings-source', 'additional-settings-destination', 'matching']);
    expect(marked(draft({ ...chosen, parts: ['mapping', 'routing', 'schedule'] }))).toEqual([
      'data-sources', 'formula-types', 'additional-settings-source', 'additional-settings-destination', 'mapping', 'routing', 'custom-routing', 'scheduling',
    ]);
    // the review saves nothing: done once the formula is live
    expect(isStepMarkedDone('review', draft(chosen))).toBe(false);
    expect(isStepMarkedDone('review', { ...draft(chosen), isDraft: false })).toBe(true);
    // processing activates the draft: the autosend part the routing step saved does not make it done
    expect(isStepMarkedDone('processing', draft({ ...chosen, parts: ['mapping', 'matching', 'routing', 'schedule', 'autosend'] }))).toBe(false);
    expect(isStepMarkedDone('processing', { ...draft(chosen), isDraft: false, parts: ['autosend'] })).toBe(true);
  });

  it('reads custom routing and routing as the same part', () => {
    const f = draft({ parts: ['routing'] });
    expect(isStepSetUp('custom-routing', f)).toBe(true);
    expect(isStepSetUp('routing', f)).toBe(true);
    expect(isStepSetUp('scheduling', f)).toBe(false);
  });
});
