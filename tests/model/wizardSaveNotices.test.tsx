/**
 * A wizard step's save notice takes the place of the previous step's: a person stepping through
 * quickly sees one notice, not a pile of them growing over the wizard.
 */
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { Notifications, notifications } from '@mantine/notifications';
import { afterEach, expect, it } from 'vitest';
import type { WizardStep } from '../../src/domain/formula/wizard.ts';
import type { StepEditorRef } from '../../src/machines/stepEditor.ts';
import { useStepAnnouncements } from '../../src/views/wizard/step.tsx';

afterEach(() => {
  cleanup();
  notifications.clean();
});

/** an editor that only announces, as a step editor's save does */
function announcingEditor() {
  const handlers = new Map<string, (e: { step: WizardStep; detail?: string }) => void>();
  const editor = { on: (type: string, fn: (e: { step: WizardStep; detail?: string }) => void) => { handlers.set(type, fn); return { unsubscribe: () => handlers.delete(type) }; } };
  return { editor: editor as unknown as StepEditorRef, emit: (type: string, e: { step: WizardStep; detail?: string }) => act(() => handlers.get(type)!(e)) };
}

/** well before a notice closes by itself (5 s) */
const GONE_AT_ONCE = { timeout: 1_500 };

function Step({ editor }: { editor: StepEditorRef }) {
  useStepAnnouncements(editor);
  return null;
}

it('shows only the latest step\'s save notice, a failure as well as a success', async () => {
  const { editor, emit } = announcingEditor();
  render(<MantineProvider><Notifications /><Step editor={editor} /></MantineProvider>);
  emit('step.announceSaved', { step: 'data-sources' });
  await screen.findByText('Data sources has been saved');
  emit('step.announceSaved', { step: 'formula-types' });
  await screen.findByText('Formula type has been saved');
  await waitFor(() => expect(screen.queryByText('Data sources has been saved')).toBeNull(), GONE_AT_ONCE);
  emit('step.announceSaveFailed', { step: 'mapping', detail: 'The system did not answer.' });
  await screen.findByText('An error occured while saving Mapping');
  await waitFor(() => expect(screen.queryByText('Formula type has been saved')).toBeNull(), GONE_AT_ONCE);
  // another notification of the app is left alone
  notifications.show({ message: 'Something else' });
  emit('step.announceSaved', { step: 'mapping' });
  await screen.findByText('Mapping has been saved');
  await waitFor(() => expect(screen.queryByText('An error occured while saving Mapping')).toBeNull(), GONE_AT_ONCE);
  expect(screen.getByText('Something else')).toBeTruthy();
});
