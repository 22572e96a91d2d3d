/**
 * A run's counts per stage, as the run history and the formula cards say them: what it collected,
 * where those records went (per bucket, omitted), and what the destination did with them (sent,
 * of which by hand; refused). The counts are the runs API's (src/domain/api/formulas.ts RunView):
 * collected, bucket:<name>, state:<state>, created, updated, refused, sentByHand, reprocessed.
 */
import { BUCKET_LABELS, BUCKETS, type Bucket } from './statuses.ts';

export interface RunStageCounts {
  collected: number;
  /** the buckets the collected records went to (a custom validation bucket by its name), in the buckets' order, only those with records */
  buckets: { bucket: Bucket; customBucket: string | null; label: string; count: number }[];
  omitted: number;
  /** created or updated in the destination, by the run or by hand */
  sent: number;
  /** of `sent`, what people sent with Send now */
  sentByHand: number;
  refused: number;
  /** held records a reprocessing run matched and routed again */
  reprocessed: number;
}

const isBucket = (b: string): b is Bucket => (BUCKETS as readonly string[]).includes(b);

export function runStageCounts(counts: Readonly<Record<string, number>>): RunStageCounts {
  const n = (key: string) => counts[key] ?? 0;
  const buckets: RunStageCounts['buckets'] = [];
  for (const [key, count] of Object.entries(counts)) {
    if (!key.startsWith('bucket:') || count <= 0) continue;
    const [bucket = '', ...rest] = key.slice('bucket:'.length).split('/');
    if (!isBucket(bucket)) continue;
    const customBucket = rest.length ? rest.join('/') : null;
    buckets.push({ bucket, customBucket, label: customBucket ? `Validation: ${customBucket}` : BUCKET_LABELS[bucket], count });
  }
  buckets.sort((a, b) => BUCKETS.indexOf(a.bucket) - BUCKETS.indexOf(b.bucket) || (a.customBucket ?? '').localeCompare(b.customBucket ?? ''));
  return {
    collected: n('collected'),
    buckets,
    omitted: n('state:omitted'),
    sent: n('created') + n('updated'),
    sentByHand: n('sentByHand'),
    refused: n('refused'),
    reprocessed: n('reprocessed'),
  };
}

/** How long a run took, in words: '45 s', '2 min 5 s', '1 h 3 min'. */
export function durationWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}
