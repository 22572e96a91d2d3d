/**
 * The formula review printout (/{formulaId}/print-formula-review, SPEC.md section 2): the review
 * step's summary on a page of its own. On paper only the review shows: the app's navigation, the
 * Print button and links are left out, and no section is split across pages. The printReview
 * machine reads the formula and its review.
 */
import { useContext } from 'react';
import { useParams } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { Alert, Button, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconPrinter } from '@tabler/icons-react';
import { isCustomRoutingOn } from '../../machines/flags.ts';
import { formulaDisplayName } from '../../domain/formula/formula.ts';
import { printReviewMachine } from '../../machines/printReview.ts';
import { FlagsActorContext } from '../shell/actors.tsx';
import { FormulaSummary, type SummaryParts } from './FormulaSummary.tsx';

/** Paper: only the printout, in black on white, each section kept whole. */
const PRINT_CSS = `
@media print {
  @page { margin: 16mm; }
  body * { visibility: hidden; }
  .formula-print, .formula-print * { visibility: visible; }
  .formula-print { position: absolute; inset: 0 auto auto 0; width: 100%; padding: 0; color: #000; background: #fff; }
  .formula-print .formula-print-actions, .formula-print .formula-summary-edit { display: none !important; }
  .formula-print .formula-summary-section { break-inside: avoid; page-break-inside: avoid; }
  .formula-print table { break-inside: auto; }
  .formula-print tr { break-inside: avoid; }
}
`;

/** Whether routing is custom for this formula (the shell's flags; none outside it). */
function useCustomRouting(formulaId: string): boolean {
  const flags = useContext(FlagsActorContext) ?? undefined;
  return useSelector(flags, (s) => (s ? isCustomRoutingOn(s, formulaId) : false));
}

const NO_LABELS: Record<string, string> = {};

/** tests hand in the machine over fake calls (printReviewOver) */
export function PrintFormulaReviewPage({ logic = printReviewMachine }: { logic?: typeof printReviewMachine }) {
  const { formulaId = '' } = useParams();
  const review = useActorRef(logic, { input: { formulaId } });
  const formula = useSelector(review, (s) => s.context.formula);
  const parts = useSelector(review, (s) => (s.context.review?.parts ?? null) as SummaryParts | null);
  const objectLabels = useSelector(review, (s) => s.context.review?.objectLabels ?? NO_LABELS);
  const fieldLabels = useSelector(review, (s) => s.context.review?.fieldLabels ?? NO_LABELS);
  const sourceFieldLabels = useSelector(review, (s) => s.context.review?.sourceFieldLabels ?? NO_LABELS);
  const error = useSelector(review, (s) => (s.matches('unavailable') ? s.context.error : null));
  const partsError = useSelector(review, (s) => (s.matches('failed') ? s.context.error : null));
  const customRouting = useCustomRouting(formulaId);
  const reload = () => review.send({ type: 'retry' });

  const printed = new Date().toLocaleString(undefined, { dateStyle: 'long', timeStyle: 'short' });

  return (
    <Stack className="formula-print" maw={900} gap="md" data-testid="formula-print">
      <style>{PRINT_CSS}</style>
      <Group justify="space-between" align="flex-start" wrap="wrap">
        <div>
          <Title order={1} size="h2">Formula review{formula ? `: ${formulaDisplayName(formula)}` : ''}</Title>
          <Text size="sm" c="dimmed">Printed {printed}</Text>
        </div>
        <Group className="formula-print-actions">
          <Button leftSection={<IconPrinter size={16} aria-hidden />} onClick={() => window.print()} disabled={!parts}>Print</Button>
        </Group>
      </Group>
      {(error || partsError) && (
        <Alert color="red" role="alert" title="The review could not be read">
          <Text size="sm">{error ?? partsError}</Text>
          {!error && <Button size="xs" mt="sm" onClick={reload}>Try again</Button>}
        </Alert>
      )}
      {!error && !partsError && !parts && <Stack aria-label="Loading the review"><Skeleton h={28} /><Skeleton h={240} /></Stack>}
      {formula && parts && <FormulaSummary formula={formula} parts={parts} objectLabels={objectLabels} fieldLabels={fieldLabels} sourceFieldLabels={sourceFieldLabels} customRouting={customRouting} />}
    </Stack>
  );
}
