/**
 * What each wizard step loads and saves (SPEC.md section 2), for the step editor
 * (./stepEditor.ts): `load` answers the data the step's screen shows and the saved copy of its
 * draft; `save` stores a draft and answers the formula as the server now has it, when it changed.
 * A step without an entry has nothing of its own to load or save.
 */
import * as v from 'valibot';
import type { WizardStep } from '../domain/formula/wizard.ts';
import { ScheduleSchema, type Schedule } from '../domain/formula/parts.ts';
import { formulas, type FormulaView } from '../services/formulas.ts';

/** what the screen shows, the draft as saved, and the draft the screen opens with */
export interface StepLoad { data: unknown; saved: unknown; draft: unknown }

export interface StepIO {
  load(formula: FormulaView): Promise<StepLoad>;
  save(formula: FormulaView, draft: unknown): Promise<FormulaView | undefined>;
}

/** The calls the steps make; tests hand in fakes of the same shape. */
export interface StepCalls {
  formulas: Pick<typeof formulas, 'get' | 'getPart' | 'putPart'>;
}

/** The browser's own zone, which a new schedule starts with. */
export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** The scheduling step's form: every field, also those the chosen mode does not use. */
export interface ScheduleForm {
  mode: 'scheduled' | 'continuous';
  frequency: 'daily' | 'weekly';
  day: string;
  time: string;
  timeZone: string;
}

export const scheduleFormOf = (s: Schedule | null): ScheduleForm => ({
  mode: s?.mode ?? 'scheduled',
  frequency: s?.mode === 'scheduled' ? s.frequency : 'daily',
  day: s?.mode === 'scheduled' && s.frequency === 'weekly' ? s.day : '',
  time: s?.mode === 'scheduled' ? s.time : '02:00',
  timeZone: s?.mode === 'scheduled' ? s.timeZone : browserTimeZone(),
});

/** The schedule a form stands for (its draft); not yet checked. */
export const scheduleOf = (f: ScheduleForm): unknown => (f.mode === 'continuous'
  ? { mode: 'continuous' }
  : f.frequency === 'daily'
    ? { mode: 'scheduled', frequency: 'daily', time: f.time, timeZone: f.timeZone }
    : { mode: 'scheduled', frequency: 'weekly', day: f.day, time: f.time, timeZone: f.timeZone });

/** The steps' loads and saves over these calls. */
export function stepIO({ formulas: f }: StepCalls): Partial<Record<WizardStep, StepIO>> {
  return {
    scheduling: {
      async load(formula) {
        // a file-upload formula runs per upload: it has no schedule to read
        if (formula.usesFileUpload) return { data: null, saved: null, draft: null };
        const saved = await f.getPart(formula.id, 'schedule', { silent: true });
        // a schedule not saved yet is a change as soon as the step opens
        return { data: saved, saved: saved ? scheduleOf(scheduleFormOf(saved)) : null, draft: scheduleOf(scheduleFormOf(saved)) };
      },
      async save(formula, draft) {
        const schedule = v.parse(ScheduleSchema, draft);
        await f.putPart(formula.id, 'schedule', schedule, { silent: true });
        // the formula's list of parts now holds the schedule
        return f.get(formula.id, { silent: true }).catch(() => undefined);
      },
    },
  };
}

export const STEP_IO = stepIO({ formulas });

/** Whether the step loads and saves through a step editor. */
export const hasStepEditor = (step: WizardStep) => step in STEP_IO;
