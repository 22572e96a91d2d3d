/**
 * What the matching, routing and custom-routing steps share: a part schema's messages where they
 * point and as the save error, field options, the loading and load-failed screens, and the small
 * controls of an ordered list. (Their parts and fields are read by the step editor: src/machines/wizardSteps.ts.)
 */
import type { ReactNode } from 'react';
import * as v from 'valibot';
import { ActionIcon, Alert, Button, Group, List, Skeleton, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconArrowDown, IconArrowUp, IconTrash } from '@tabler/icons-react';
import type { FieldRef } from '../../../../domain/formula/recommendedScenarios.ts';
import type { StepEditorRef } from '../../../../machines/stepEditor.ts';
import { saveFailedMessage, useStepAnnouncements, useStepRead, type StepProps } from '../../step.tsx';

/** A field offered in a list: its name is saved, its label is read. */
export interface FieldOption { value: string; label: string }

/**
 * A schema's verdict on a body: the first message at each path ('' for the whole body) and every
 * distinct message, in order, for the save error.
 */
export function verdict<S extends v.GenericSchema>(schema: S, body: unknown) {
  const result = v.safeParse(schema, body);
  if (result.success) return { ok: true as const, output: result.output as v.InferOutput<S>, at: {} as Record<string, string>, messages: [] as string[] };
  const at: Record<string, string> = {};
  for (const issue of result.issues) at[v.getDotPath(issue) ?? ''] ??= issue.message;
  return { ok: false as const, output: null, at, messages: [...new Set(result.issues.map((i) => i.message))] };
}

/** Field options with any saved value the list no longer has, so a saved choice never shows blank. */
export function fieldOptions(fields: readonly FieldRef[], keep: readonly string[] = []): FieldOption[] {
  const options = fields.map((f) => ({ value: f.name, label: f.label && f.label !== f.name ? f.label : f.name }));
  const names = new Set(options.map((o) => o.value));
  for (const name of keep) if (name && !names.has(name)) { options.push({ value: name, label: name }); names.add(name); }
  return options;
}

/** The step while its part and fields load. */
export function StepSkeleton({ label }: { label: string }) {
  return (
    <Stack role="status" aria-busy="true" aria-label={label} gap="sm">
      <Skeleton height={14} width="70%" radius="sm" />
      <Skeleton height={120} radius="md" />
      <Skeleton height={120} radius="md" />
    </Stack>
  );
}

export function LoadFailed({ message, onRetry, onBack }: { message: string; onRetry(): void; onBack?: () => void }) {
  return (
    <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title={message}>
      <Group mt="xs">
        <Button size="xs" onClick={onRetry}>Try again</Button>
        {onBack && <Button size="xs" variant="default" onClick={onBack}>Back</Button>}
      </Group>
    </Alert>
  );
}

/** The step once its editor has read what it needs: a skeleton while it reads, Try again when that failed. */
export function StepRead<T>({ editor, loading, onBack, children }: {
  editor: StepEditorRef; loading: string; onBack?: () => void; children: (data: T) => ReactNode;
}) {
  useStepAnnouncements(editor);
  const { data, unread, error } = useStepRead<T>(editor);
  if (unread) return <LoadFailed message={error ?? ''} onRetry={() => editor.send({ type: 'retry' })} onBack={onBack} />;
  if (!data) return <StepSkeleton label={loading} />;
  return <>{children(data)}</>;
}

/** The schema's messages when a save is refused before it is sent. */
export function SaveRefused({ step, messages }: { step: StepProps['step']; messages: string[] }) {
  if (!messages.length) return null;
  return (
    <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title={saveFailedMessage(step)} data-testid="save-refused">
      {messages.length === 1 ? <Text size="sm">{messages[0]}</Text> : <List size="sm">{messages.map((m) => <List.Item key={m}>{m}</List.Item>)}</List>}
    </Alert>
  );
}

/** Said once on a step the user may only read. */
export function ReadOnlyNote() {
  return <Text size="sm" c="dimmed">You can view this step. Changing it needs permission to edit formulas.</Text>;
}

/** Move up, move down and remove, for one item of an ordered list ('scenario 2', 'rule 1'). */
export function OrderControls({ name, index, count, onMove, onRemove, removable = true }: {
  name: string;
  index: number;
  count: number;
  onMove(from: number, to: number): void;
  onRemove(index: number): void;
  removable?: boolean;
}) {
  return (
    <Group gap={4} wrap="nowrap">
      <ActionIcon variant="subtle" aria-label={`Move ${name} up`} disabled={index === 0} onClick={() => onMove(index, index - 1)}>
        <IconArrowUp size={18} aria-hidden />
      </ActionIcon>
      <ActionIcon variant="subtle" aria-label={`Move ${name} down`} disabled={index === count - 1} onClick={() => onMove(index, index + 1)}>
        <IconArrowDown size={18} aria-hidden />
      </ActionIcon>
      <ActionIcon variant="subtle" color="red" aria-label={`Remove ${name}`} disabled={!removable} onClick={() => onRemove(index)}>
        <IconTrash size={18} aria-hidden />
      </ActionIcon>
    </Group>
  );
}

/** The list with one item moved. */
export function moved<T>(items: readonly T[], from: number, to: number): T[] {
  if (to < 0 || to >= items.length) return [...items];
  const next = [...items];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
}

/** The list with one item replaced. */
export const replaced = <T,>(items: readonly T[], index: number, item: T): T[] => items.map((x, i) => (i === index ? item : x));
export const removed = <T,>(items: readonly T[], index: number): T[] => items.filter((_, i) => i !== index);

/** A short section heading with an explanation under it. */
export function SectionIntro({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text component="h3" fw={600} size="md">{title}</Text>
      {children && <Text size="sm" c="dimmed">{children}</Text>}
    </Stack>
  );
}

/** The messages under one path, by the rest of their path ('' for the path itself). */
export function under(at: Readonly<Record<string, string>>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, message] of Object.entries(at)) {
    if (path === prefix) out[''] = message;
    else if (path.startsWith(`${prefix}.`)) out[path.slice(prefix.length + 1)] = message;
  }
  return out;
}
