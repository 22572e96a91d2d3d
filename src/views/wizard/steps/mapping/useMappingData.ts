/**
 * The mapping step's sample rows for the preview: as the step editor read them with the rest of
 * the step, or read again on their own (the editor's `sample.reload`), since the mapping can go on
 * without the preview.
 */
import { useMemo } from 'react';
import { useSelector } from '@xstate/react';
import type { FormulaSample } from '../../../../domain/api/formulas.ts';
import type { StepEditorRef } from '../../../../machines/stepEditor.ts';
import type { MappingData } from '../../../../machines/wizardSteps.ts';

export type SampleState = { status: 'loading' } | { status: 'failed' } | { status: 'ready'; sample: FormulaSample };

export function useSample(editor: StepEditorRef) {
  const loading = useSelector(editor, (s) => s.context.sampleLoading);
  const loaded = useSelector(editor, (s) => (s.context.data as MappingData | null | undefined)?.sample ?? null);
  const sample = useMemo<SampleState>(
    () => (loading ? { status: 'loading' } : loaded ? { status: 'ready', sample: loaded } : { status: 'failed' }),
    [loading, loaded],
  );
  const retrySample = () => editor.send({ type: 'sample.reload' });
  return { sample, retrySample };
}
