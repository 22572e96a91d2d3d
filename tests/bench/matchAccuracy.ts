/**
 * Matching accuracy: precision and recall of confident one-to-one matches on synthetic people
 * (tests/support/syntheticPeople.ts), matched in memory with the Sandbox CRM's recommended
 * scenarios and decideMatch (tests/support/matchEvaluation.ts). Printed against the targets; the
 * same check at a smaller size is asserted by tests/unit/matching.test.ts.
 * Runs inside `npm run bench`, or alone: `npx tsx tests/bench/matchAccuracy.ts`.
 */
import { pathToFileURL } from 'node:url';
import { CONFIDENT_MATCH_SCORE, RECOMMENDED_DISCARD_BELOW } from '../../src/domain/formula/matchScore.ts';
import { evaluateMatchAccuracy, type AccuracyResult } from '../support/matchEvaluation.ts';

export const PRECISION_TARGET = 0.995;
export const RECALL_TARGET = 0.95;

const CRM_SIZE = 20_000;
const INCOMING_SIZE = 5_000;
const SEED = 2026;

const n = (x: number) => x.toLocaleString('en');
const against = (value: number, target: number) => `${value.toFixed(4)} ${value >= target ? 'PASS' : 'MISS'} (>= ${target})`;

export async function matchAccuracyBench(): Promise<void> {
  const runs: [string, AccuracyResult][] = [
    [`discard below ${RECOMMENDED_DISCARD_BELOW} (the wizard's default)`, evaluateMatchAccuracy({ crmSize: CRM_SIZE, incomingSize: INCOMING_SIZE, seed: SEED, discardBelow: RECOMMENDED_DISCARD_BELOW })],
    ['no discard (the field left empty)', evaluateMatchAccuracy({ crmSize: CRM_SIZE, incomingSize: INCOMING_SIZE, seed: SEED, discardBelow: null })],
  ];
  const first = runs[0]![1];
  const scenarios = first.scenarios.map((s) => `${s.name} (${s.isPrimary ? 'primary' : 'secondary'})`).join(', ');
  console.log(`match accuracy: ${n(CRM_SIZE)} CRM constituents, ${n(first.incoming)} incoming (${n(first.existing)} of them in the CRM, messy; ${n(first.incoming - first.existing)} not: namesakes, household members, strangers)`);
  console.log(`match accuracy: scenarios ${scenarios}; a match counts when one-to-one and scoring at least ${CONFIDENT_MATCH_SCORE}`);
  const header = ['routing', 'confident', 'right', 'wrong', 'precision', 'recall', 'review 1:1', 'review 1:many', 'new', 'ms'];
  const rows = runs.map(([label, r]) => [
    label, n(r.confident), n(r.truePositives), n(r.falsePositives), against(r.precision, PRECISION_TARGET), against(r.recall, RECALL_TARGET),
    n(r.review.oneToOne), n(r.review.oneToMany), n(r.buckets.new), r.ms.toFixed(0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  for (const row of [header, ...rows]) console.log(`  ${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`);
  const kinds = Object.entries(first.byKind).map(([kind, k]) => `${kind} ${n(k.count)} (${n(k.confident)} confident, ${n(k.right)} right)`).join('; ');
  console.log(`match accuracy: by incoming kind, ${runs[0]![0]}: ${kinds}; CRM people never found: ${n(first.missedAsNew)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await matchAccuracyBench();
