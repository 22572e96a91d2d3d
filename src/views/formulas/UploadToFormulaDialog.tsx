/**
 * The dialog that uploads a file to a live file-upload formula: the upload screen (its machine,
 * dropzone, progress and every outcome) with each file sent to that formula, which processes all
 * of its rows. The dialog and the upload screen load when it first opens: the Data Queue, which
 * shows it on its cards, keeps to its JavaScript budget.
 */
import { lazy, Suspense } from 'react';
import { Loader } from '@mantine/core';
import { LazyModal } from '../../ui/LazyModal.tsx';

const UploadPage = lazy(() => import('../upload/UploadPage.tsx').then((m) => ({ default: m.UploadPage })));

export function UploadToFormulaDialog({ formula, opened, onClose }: {
  formula: { id: string; name: string };
  opened: boolean;
  onClose(): void;
}) {
  return (
    <LazyModal opened={opened} onClose={onClose} title={`Upload a file to ${formula.name}`} size="lg" centered closeButtonProps={{ 'aria-label': 'Close' }}>
      {/* a fresh upload each time it opens; closing it cancels a send under way */}
      {opened && (
        <Suspense fallback={<Loader size="sm" aria-label="Loading the upload" />}>
          <UploadPage formula={formula} />
        </Suspense>
      )}
    </LazyModal>
  );
}
