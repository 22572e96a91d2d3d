/**
 * Step 9, scheduling (not for file-upload formulas): scheduled daily, or weekly on a day, at a
 * time in a time zone; or continuous. Checked with the schedule part's schema and its messages.
 *
 * Run once (a range of at most 30 days) is an action on an active formula, not a part that is
 * stored: the range chosen here is checked with the same rule and offered as a choice, and says
 * so; it is not saved with the schedule.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Alert, Button, Checkbox, Fieldset, Group, NativeSelect, Radio, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import * as v from 'valibot';
import { issuesByField } from '../../../domain/connectors/fields.ts';
import { CONTINUOUS_POLL_MINUTES, RUN_ONCE_MAX_DAYS, WEEKDAYS } from '../../../domain/formula/constants.ts';
import { RunOnceSchema, ScheduleSchema, type Schedule } from '../../../domain/formula/parts.ts';
import { StepActions, useWizardServices, type StepProps } from '../step.tsx';
import { announceSaveFailed, announceSaved, problemOf, useReportDirty } from './shared.tsx';

export const RUN_ONCE_NOTE = 'Run once starts when the formula is active';

/** The browser's own zone, which a new schedule starts with. */
export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

function timeZones(current: string): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  // UTC and a saved zone stay choosable even where the runtime lists neither
  return [...new Set([...all, 'UTC', ...(current ? [current] : [])])].sort();
}

const dayLabel = (d: string) => d[0]!.toUpperCase() + d.slice(1);

interface Form {
  mode: 'scheduled' | 'continuous';
  frequency: 'daily' | 'weekly';
  day: string;
  time: string;
  timeZone: string;
}

const formOf = (s: Schedule | null): Form => ({
  mode: s?.mode ?? 'scheduled',
  frequency: s?.mode === 'scheduled' ? s.frequency : 'daily',
  day: s?.mode === 'scheduled' && s.frequency === 'weekly' ? s.day : '',
  time: s?.mode === 'scheduled' ? s.time : '02:00',
  timeZone: s?.mode === 'scheduled' ? s.timeZone : browserTimeZone(),
});

const scheduleOf = (f: Form): unknown => (f.mode === 'continuous'
  ? { mode: 'continuous' }
  : f.frequency === 'daily'
    ? { mode: 'scheduled', frequency: 'daily', time: f.time, timeZone: f.timeZone }
    : { mode: 'scheduled', frequency: 'weekly', day: f.day, time: f.time, timeZone: f.timeZone });

/** The schedule schema reports each option's own issues (it is nested on frequency). */
const optionFor = (_f: Form): v.GenericSchema => ScheduleSchema;

export function SchedulingStep(props: StepProps) {
  const { formula, canEdit, onDirtyChange, onBack } = props;
  const { formulas } = useWizardServices();
  const [saved, setSaved] = useState<Schedule | null | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [form, setForm] = useState<Form>(formOf(null));
  const [runOnce, setRunOnce] = useState({ on: false, from: '', to: '' });
  const [submitted, setSubmitted] = useState(false);
  const [saving, setSaving] = useState(false);
  const zones = useMemo(() => timeZones(form.timeZone), [form.timeZone]);

  const load = useCallback(() => {
    setLoadError(null);
    formulas.getPart(formula.id, 'schedule', { silent: true }).then(
      (s) => { setSaved(s); setForm(formOf(s)); },
      (err) => setLoadError(problemOf(err).detail ?? 'Try again.'),
    );
  }, [formula.id, formulas]);
  useEffect(load, [load]);

  const dirty = saved !== undefined && JSON.stringify(scheduleOf(form)) !== JSON.stringify(saved ? scheduleOf(formOf(saved)) : null);
  useReportDirty(dirty, onDirtyChange);

  const parsed = v.safeParse(ScheduleSchema, scheduleOf(form));
  const issues = v.safeParse(optionFor(form), scheduleOf(form)).issues;
  const errors = submitted && issues ? issuesByField(issues) : {};
  const range = runOnce.on ? v.safeParse(RunOnceSchema, { from: runOnce.from, to: runOnce.to }) : null;
  const rangeErrors = submitted && range && !range.success ? issuesByField(range.issues) : {};

  async function save() {
    setSubmitted(true);
    if (!parsed.success || issues || (range && !range.success)) return;
    setSaving(true);
    try {
      await formulas.putPart(formula.id, 'schedule', parsed.output, { silent: true });
      // the formula's list of parts now holds the schedule
      const updated = await formulas.get(formula.id, { silent: true }).catch(() => undefined);
      announceSaved(props, updated);
    } catch (err) {
      announceSaveFailed(props.step, err);
    } finally {
      setSaving(false);
    }
  }

  if (formula.usesFileUpload) {
    return (
      <Stack>
        <Text>A file-upload formula runs each time a file is uploaded for it; it has no schedule.</Text>
        <StepActions onBack={onBack} onSave={() => props.onSaved()} saving={false} label="Continue" />
      </Stack>
    );
  }
  if (loadError) {
    return (
      <Alert color="red" role="alert" title="The schedule could not be read">
        <Text size="sm">{loadError}</Text>
        <Button size="xs" mt="sm" onClick={load}>Try again</Button>
      </Alert>
    );
  }
  if (saved === undefined) return <Stack aria-label="Loading the schedule"><Skeleton h={36} /><Skeleton h={120} /></Stack>;

  const set = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  const disabled = !canEdit;

  return (
    <form onSubmit={(e) => { e.preventDefault(); void save(); }} noValidate aria-label="Scheduling">
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
          <Stack gap="xs">
            <Checkbox
              label="Also collect the records of a date range once" checked={runOnce.on} disabled={disabled}
              description={`A range of at most ${RUN_ONCE_MAX_DAYS} days.`}
              onChange={(e) => { const on = e.currentTarget.checked; setRunOnce((r) => ({ ...r, on })); }}
            />
            {runOnce.on && (
              <>
                <Group grow preventGrowOverflow={false} wrap="wrap" align="flex-start">
                  <TextInput
                    type="date" label="From" required disabled={disabled} value={runOnce.from} error={rangeErrors.from} miw={160}
                    onChange={(e) => { const from = e.currentTarget.value; setRunOnce((r) => ({ ...r, from })); }}
                  />
                  <TextInput
                    type="date" label="To" required disabled={disabled} value={runOnce.to} error={rangeErrors.to} miw={160}
                    onChange={(e) => { const to = e.currentTarget.value; setRunOnce((r) => ({ ...r, to })); }}
                  />
                </Group>
                {rangeErrors._ && <Text size="sm" c="red" role="alert">{rangeErrors._}</Text>}
                <Text size="sm" c="dimmed">{RUN_ONCE_NOTE}. The range is checked here; it is not saved with the schedule.</Text>
              </>
            )}
          </Stack>
        </Fieldset>

        <StepActions
          onBack={onBack}
          onSave={() => { if (canEdit) void save(); else props.onSaved(); }}
          saving={saving}
          label={canEdit ? 'Save and continue' : 'Next'}
        />
      </Stack>
    </form>
  );
}
