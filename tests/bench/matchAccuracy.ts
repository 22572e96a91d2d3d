/**
 * Matching accuracy: precision and recall of confident one-to-one matches on synthetic people
 * (tests/support/syntheticPeople.ts), matched in memory with the Sandbox CRM's recommended
 * scenarios and decideMatch (tests/support/matchEvaluation.ts), and the share of CRM people sent to
 * the new bucket (each becomes a duplicate when sent). Printed against the targets for two seeds:
 * the one the scoring was tuned on, and one it never was (accuracy is judged on that one). The same
 * check at a smaller size is asserted by tests/unit/matching.test.ts.
 * Runs inside `npm run bench`, or alone: `npx tsx tests/bench/matchAccuracy.ts`.
 */
import { pathToFileURL } from 'node:url';
import { CONFIDENT_MATCH_SCORE, RECOMMENDED_DISCARD_BELOW } from '../../src/domain/formula/matchScore.ts';
import { evaluateMatchAccuracy, HELD_OUT_SEED, TUNING_SEED, type AccuracyResult } from '../support/matchEvaluation.ts';

export const PRECISION_TARGET = 0.995;
export const RECALL_TARGET = 0.95;
/** the most of the CRM's people that may be routed to new */
export const NEW_SHARE_TARGET = 0.01;

/** BENCH_ACCURACY_CRM and BENCH_ACCURACY_INCOMING size it (the scale: 1,000,000 and 100,000) */
const CRM_SIZE = Number(process.env.BENCH_ACCURACY_CRM ?? 100_000);
const INCOMING_SIZE = Number(process.env.BENCH_ACCURACY_INCOMING ?? 20_000);

const n = (x: number) => x.toLocaleString('en');
const against = (value: number, target: number) => `${value.toFixed(4)} ${value >= target ? 'PASS' : 'MISS'} (>= ${target})`;
const below = (value: number, target: number) => `${(100 * value).toFixed(2)} % ${value < target ? 'PASS' : 'MISS'} (< ${100 * target} %)`;

export async function matchAccuracyBench(): Promise<void> {
  for (const [label, seed] of [['held out, never tuned on', HELD_OUT_SEED], ['tuning', TUNING_SEED]] as const) {
    const runs: [string, AccuracyResult][] = [
      [`discard below ${RECOMMENDED_DISCARD_BELOW} (the wizard's default)`, evaluateMatchAccuracy({ crmSize: CRM_SIZE, incomingSize: INCOMING_SIZE, seed, discardBelow: RECOMMENDED_DISCARD_BELOW })],
      ['no discard (the field left empty)', evaluateMatchAccuracy({ crmSize: CRM_SIZE, incomingSize: INCOMING_SIZE, seed, discardBelow: null })],
    ];
    const first = runs[0]![1];
    const scenarios = first.scenarios.map((s) => `${s.name} (${s.isPrimary ? 'primary' : 'secondary'})`).join(', ');
    console.log(`match accuracy, seed ${seed} (${label}): ${n(CRM_SIZE)} CRM constituents, ${n(first.incoming)} incoming (${n(first.existing)} of them in the CRM, messy; ${n(first.incoming - first.existing)} not: namesakes, household members, strangers)`);
    console.log(`match accuracy: scenarios ${scenarios}; a match counts when one-to-one and scoring at least ${CONFIDENT_MATCH_SCORE}`);
    const header = ['routing', 'confident', 'right', 'wrong', 'precision', 'recall', 'CRM people to new', 'review 1:1', 'review 1:many', 'new', 'ms'];
    const rows = runs.map(([routing, r]) => [
      routing, n(r.confident), n(r.truePositives), n(r.falsePositives), against(r.precision, PRECISION_TARGET), against(r.recall, RECALL_TARGET),
      below(r.newShare, NEW_SHARE_TARGET), n(r.review.oneToOne), n(r.review.oneToMany), n(r.buckets.new), r.ms.toFixed(0),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    for (const row of [header, ...rows]) console.log(`  ${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`);
    const kinds = Object.entries(first.byKind).map(([kind, k]) => `${kind} ${n(k.count)} (${n(k.confident)} confident, ${n(k.right)} right)`).join('; ');
    console.log(`match accuracy: by incoming kind, ${runs[0]![0]}: ${kinds}; CRM people never found: ${n(first.missedAsNew)}`);
    const mess = Object.entries(first.byMess).map(([m, k]) => `${m} ${n(k.count)} (${(k.right / k.count).toFixed(3)} matched, ${n(k.asNew)} to new)`).join('; ');
    console.log(`match accuracy: copies by hard change: ${mess}`);
    const bands = runs[1]![1].calibration.filter((b) => b.candidates).map((b) => `${b.from}-${b.to}: ${(b.right / b.candidates).toFixed(3)} of ${n(b.candidates)}`).join('; ');
    console.log(`match accuracy: calibration, ${runs[1]![0]}: share of the candidates in each score band that are the person: ${bands}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await matchAccuracyBench();
