/**
 * Step 9, scheduling (not for file-upload formulas): scheduled daily, or weekly on a day, at a
 * time in a time zone; or continuous. Checked with the schedule part's schema and its messages.
 *
 * Run once (SPEC.md section 5: a range of at most 30 days) is an action on an active formula, not
 * a part that is stored: on a live formula the range chosen here is checked with that rule and,
 * as the step is saved, one run collects the records of that range. It is part of the step's
 * draft, so leaving the step with it changed asks about unsaved changes. A draft offers it once
 * it is active.
 */
import { useMemo, useState } from 'react';
import { useSelector } from '@xstate/react';
import { Alert, Button, Checkbox, Fieldset, Group, NativeSelect, Radio, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import * as v from 'valibot';
import { issuesByField } from '../../../domain/connectors/fields.ts';
import { CONTINUOUS_POLL_MINUTES, RUN_ONCE_MAX_DAYS, WEEKDAYS } from '../../../domain/formula/constants.ts';
import { RunOnceSchema, ScheduleSchema, type Schedule } from '../../../domain/formula/parts.ts';
import type { StepEditorRef } from '../../../machines/stepEditor.ts';
import { browserTimeZone, scheduleFormOf, scheduleOf, schedulingDraftOf, type RunOnceForm, type ScheduleForm as Form } from '../../../machines/wizardSteps.ts';
import { StepActions, useStepAnnouncements, useStepRead, type StepProps } from '../step.tsx';

export { browserTimeZone };

export const RUN_ONCE_NOTE = 'Saving starts one run that collects the records of these dates';
export const RUN_ONCE_DRAFT_NOTE = 'Run once is offered here once the formula is active.';

function timeZones(current: string): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  // UTC and a saved zone stay choosable even where the runtime lists neither
  return [...new Set([...all, 'UTC', ...(current ? [current] : [])])].sort();
}

const dayLabel = (d: string) => d[0]!.toUpperCase() + d.slice(1);

/** The schedule schema reports each option's own issues (it is nested on frequency). */
const optionFor = (_f: Form): v.GenericSchema => ScheduleSchema;

export function SchedulingStep(props: StepProps) {
  const { formula, onBack, editor } = props;
  if (formula.usesFileUpload) {
    return (
      <Stack>
        <Text>A file-upload formula runs each time a file is uploaded for it; it has no schedule.</Text>
        <StepActions onBack={onBack} onSave={() => props.onSaved()} saving={false} label="Continue" />
      </Stack>
    );
  }
  return editor ? <ScheduleEditor {...props} editor={editor} /> : null;
}

/** The schedule as the step editor has it: read, then the form; a schedule that cannot be read offers Try again. */
function ScheduleEditor(props: StepProps & { editor: StepEditorRef }) {
  const { editor } = props;
  useStepAnnouncements(editor);
  const loading = useSelector(editor, (s) => s.matches('loading'));
  const { data: saved, unread, error } = useStepRead<Schedule | null>(editor);
  if (unread) {
    return (
      <Alert color="red" role="alert" title="The schedule could not be read">
        <Text size="sm">{error}</Text>
        <Button size="xs" mt="sm" onClick={() => editor.send({ type: 'retry' })}>Try again</Button>
      </Alert>
    );
  }
  if (loading || saved === undefined) return <Stack aria-label="Loading the schedule"><Skeleton h={36} /><Skeleton h={120} /></Stack>;
  return <ScheduleFields {...props} saved={saved} />;
}

/** The fields of the schedule and of a run once; each change of the schedule is the editor's draft. */
function ScheduleFields(props: StepProps & { editor: StepEditorRef; saved: Schedule | null }) {
  const { canEdit, onBack, editor, saved, formula } = props;
  const [form, setForm] = useState<Form>(() => scheduleFormOf(saved));
  const [runOnce, setRunOnceState] = useState<RunOnceForm>({ on: false, from: '', to: '' });
  const live = !formula.isDraft;
  const [submitted, setSubmitted] = useState(false);
  const saving = useSelector(editor, (s) => s.matches('saving'));
  const zones = useMemo(() => timeZones(form.timeZone), [form.timeZone]);

  const parsed = v.safeParse(ScheduleSchema, scheduleOf(form));
  const issues = v.safeParse(optionFor(form), scheduleOf(form)).issues;
  const errors = submitted && issues ? issuesByField(issues) : {};
  const range = runOnce.on ? v.safeParse(RunOnceSchema, { from: runOnce.from, to: runOnce.to }) : null;
  const rangeErrors = submitted && range && !range.success ? issuesByField(range.issues) : {};

  function save() {
    setSubmitted(true);
    if (!parsed.success || issues || (range && !range.success)) return;
    editor.send({ type: 'step.save' });
  }

  // the schedule and the run once range together are the step's draft: a change of either is unsaved
  const set = (patch: Partial<Form>) => {
    const next = { ...form, ...patch };
    setForm(next);
    editor.send({ type: 'draft.change', draft: schedulingDraftOf(next, runOnce) });
  };
  const setRunOnce = (patch: Partial<RunOnceForm>) => {
    const next = { ...runOnce, ...patch };
    setRunOnceState(next);
    editor.send({ type: 'draft.change', draft: schedulingDraftOf(form, next) });
  };
  const disabled = !canEdit;

  return (
    <form onSubmit={(e) => { e.preventDefault(); save(); }} noValidate aria-label="Scheduling">
      <Stack>
        <Radio.Group
          label="When the formula collects records" value={form.mode}
          onChange={(mode) => set({ mode: mode as Form['mode'] })}
        >
          <Stack gap="xs" mt="xs">
            <Radio value="scheduled" label="On a schedule" description="Daily, or weekly on one day, at a set time." disabled={disabled} />
            <Radio value="continuous" label="Continuously" description={`Checks the source for new records every ${CONTINUOUS_POLL_MINUTES} minutes.`} disabled={disabled} />
          </Stack>
        </Radio.Group>

        {form.mode === 'scheduled' && (
          <Fieldset legend="Schedule">
            <Stack>
              <Radio.Group label="How often" value={form.frequency} onChange={(frequency) => set({ frequency: frequency as Form['frequency'] })}>
                <Group mt="xs">
                  <Radio value="daily" label="Daily" disabled={disabled} />
                  <Radio value="weekly" label="Weekly" disabled={disabled} />
                </Group>
              </Radio.Group>
              {form.frequency === 'weekly' && (
                <NativeSelect
                  label="Day of the week" required disabled={disabled} value={form.day} error={errors.day}
                  data={[{ value: '', label: 'Choose a day', disabled: true }, ...WEEKDAYS.map((d) => ({ value: d, label: dayLabel(d) }))]}
                  onChange={(e) => set({ day: e.currentTarget.value })}
                />
              )}
              <Group grow preventGrowOverflow={false} wrap="wrap" align="flex-start">
                <TextInput
                  label="Time" required disabled={disabled} value={form.time} error={errors.time} placeholder="HH:MM"
                  description="24-hour clock, HH:MM" inputMode="numeric" maxLength={5} miw={140}
                  onChange={(e) => set({ time: e.currentTarget.value })}
                />
                <NativeSelect
                  label="Time zone" required disabled={disabled} value={form.timeZone} error={errors.timeZone} miw={220}
                  data={[{ value: '', label: 'Choose a time zone', disabled: true }, ...zones]}
                  onChange={(e) => set({ timeZone: e.currentTarget.value })}
                />
              </Group>
            </Stack>
          </Fieldset>
        )}

        <Fieldset legend="Run once">
          {live ? (
            <Stack gap="xs">
              <Checkbox
                label="Also collect the records of a date range once" checked={runOnce.on} disabled={disabled}
                description={`A range of at most ${RUN_ONCE_MAX_DAYS} days.`}
                onChange={(e) => setRunOnce({ on: e.currentTarget.checked })}
              />
              {runOnce.on && (
                <>
                  <Group grow preventGrowOverflow={false} wrap="wrap" align="flex-start">
                    <TextInput
                      type="date" label="From" required disabled={disabled} value={runOnce.from} error={rangeErrors.from} miw={160}
                      onChange={(e) => setRunOnce({ from: e.currentTarget.value })}
                    />
                    <TextInput
                      type="date" label="To" required disabled={disabled} value={runOnce.to} error={rangeErrors.to} miw={160}
                      onChange={(e) => setRunOnce({ to: e.currentTarget.value })}
                    />
                  </Group>
                  {rangeErrors._ && <Text size="sm" c="red" role="alert">{rangeErrors._}</Text>}
                  <Text size="sm" c="dimmed">{RUN_ONCE_NOTE}, besides the schedule.</Text>
                </>
              )}
            </Stack>
          ) : <Text size="sm" c="dimmed">{RUN_ONCE_DRAFT_NOTE}</Text>}
        </Fieldset>

        <StepActions
          onBack={onBack}
          onSave={() => { if (canEdit) save(); else props.onSaved(); }}
          saving={saving}
          label={canEdit ? 'Save and continue' : 'Next'}
        />
      </Stack>
    </form>
  );
}
