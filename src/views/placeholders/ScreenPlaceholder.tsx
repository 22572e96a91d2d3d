/** The formula bucket screens, until their records arrive: the bucket's title and an honest empty state. */
import { useParams } from 'react-router';
import { ScreenPlaceholder } from '../../ui/ScreenPlaceholder.tsx';

export function FormulaScreen({ title }: { title: string }) {
  const { formulaId, customBucket } = useParams();
  return (
    <ScreenPlaceholder
      title={`${title}${customBucket ? `: ${customBucket}` : ''}`}
      text={`No records in this bucket of formula ${formulaId}.`}
    />
  );
}
