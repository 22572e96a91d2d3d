/** Which records view each bucket screen of src/domain/screens.ts shows, and the path of a view's screen. */
import { ROUTES, SCREENS, type ScreenId } from '../../domain/screens.ts';
import type { RecordView } from '../../domain/records/query.ts';

export const BUCKET_SCREENS = {
  readyRecords: 'ready-records',
  needsAttention: 'needs-attention',
  needsAttentionReview: 'needs-attention',
  needsAttentionOneToOne: 'needs-attention-one-to-one',
  oneToMany: 'one-to-many',
  exception: 'exception',
  formulaExceptions: 'formula-exceptions',
  newRecords: 'new-records',
  validationExceptions: 'validation-exceptions',
  relatedRecords: 'related-records',
  sentRecords: 'sent',
  omittedRecords: 'omitted',
} as const satisfies Partial<Record<ScreenId, RecordView>>;
export type BucketScreen = keyof typeof BUCKET_SCREENS;

/** The bucket links of a formula, in the table's order (the one-at-a-time review and custom buckets apart). */
export const BUCKET_LINKS = (Object.keys(BUCKET_SCREENS) as BucketScreen[])
  .filter((s) => s !== 'needsAttentionReview' && s !== 'validationExceptions')
  .map((screen) => ({ screen, view: BUCKET_SCREENS[screen], title: SCREENS[screen].title }));

export function bucketPath(screen: BucketScreen, formulaId: string, customBucket?: string): string {
  return (ROUTES[screen] as string)
    .replace(':formulaId', encodeURIComponent(formulaId))
    .replace(':customBucket', encodeURIComponent(customBucket ?? ''));
}
