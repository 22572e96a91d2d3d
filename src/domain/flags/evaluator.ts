/**
 * Feature flags (SPEC.md sections 1, 3, 5, 8 and 9; DESIGN.md section 8): the evaluator the browser
 * runs locally over the snapshot (src/domain/flags/snapshot.ts), with its requests and answers.
 *
 * The evaluator reproduces Flipt's client-side engine (the wasm engine inside
 * @flipt-io/flipt-client-js, which tests/unit/flagsDifferential.test.ts uses as the oracle),
 * including its corner cases:
 * - boolean flags: `enabled` is the default value, not an off switch; rollouts are tried in order;
 *   a threshold rollout matches when `crc32(entityId + flagKey) % 100 < percentage`;
 * - variant flags: a disabled flag answers FLAG_DISABLED; the first rule whose segments match picks
 *   a variant by `crc32(flagKey + entityId) % 1000` against cumulative buckets (the rule's
 *   rollouts scaled to 1000 and rounded), found as Rust's `binary_search(bucket + 1)` finds it;
 * - segments match ALL or ANY of their constraints; a rule or segment rollout combines its segments
 *   with OR or AND; a constraint type the engine does not know makes its segment not match;
 * - a constraint whose value cannot be parsed (a number, boolean, date-time or JSON list) does not
 *   match, it is not an error.
 * Numbers behave as Rust's f32 and i32 do there.
 */
import type * as v from 'valibot';
import { matchSegments, segmentsByKey } from './constraints.ts';
import { crc32, f32, roundHalfAway, rustBinarySearch } from './engineNumbers.ts';
import { type Distribution, ENTITY_ID_REQUIRED, type EvaluationReason, FLAG_KEY_REQUIRED, type FlagSnapshot, type FlagType, type SegmentOperator, type SnapshotFlag, type SnapshotSegment } from './snapshot.ts';

// ---------------------------------------------------------------------------------------------
// Evaluation requests and responses (as @flipt-io/flipt-client-js answers them, minus timing).

export interface EvaluationRequest {
  flagKey: string;
  entityId: string;
  context?: Record<string, string>;
}

export interface BooleanEvaluation {
  enabled: boolean;
  flagKey: string;
  reason: EvaluationReason;
  segmentKeys: string[];
}

export interface VariantEvaluation {
  match: boolean;
  segmentKeys: string[];
  reason: EvaluationReason;
  flagKey: string;
  variantKey: string;
  variantAttachment: string;
}

/** An evaluation Flipt's client refuses: an empty key or entity id, an unknown flag, the wrong type. */
export class FlagEvaluationError extends Error {
  override name = 'FlagEvaluationError';
}


// ---------------------------------------------------------------------------------------------
// The evaluator.

interface CompiledFlag {
  flag: SnapshotFlag;
  type: FlagType;
  rules: { segments: Map<string, SnapshotSegment>; operator: SegmentOperator; distributions: v.InferOutput<typeof Distribution>[] }[];
  rollouts: (
    | { kind: 'threshold'; percentage: number; value: boolean }
    | { kind: 'segment'; value: boolean; operator: SegmentOperator; segments: Map<string, SnapshotSegment> }
    | { kind: 'none' }
  )[];
}

export interface FlagEvaluator {
  readonly namespace: string;
  readonly flagKeys: string[];
  evaluateBoolean(request: EvaluationRequest): BooleanEvaluation;
  evaluateVariant(request: EvaluationRequest): VariantEvaluation;
}

function checkRequest(request: EvaluationRequest): void {
  if (!request.flagKey || request.flagKey.trim() === '') throw new FlagEvaluationError(FLAG_KEY_REQUIRED);
  if (!request.entityId || request.entityId.trim() === '') throw new FlagEvaluationError(ENTITY_ID_REQUIRED);
}

/** Builds an evaluator over one snapshot (validate it first with parseFlagSnapshot). */
export function createFlagEvaluator(snapshot: FlagSnapshot): FlagEvaluator {
  const namespace = snapshot.namespace.key;
  const flags = new Map<string, CompiledFlag>();
  for (const flag of snapshot.flags) {
    flags.set(flag.key, {
      flag,
      type: flag.type ?? 'VARIANT_FLAG_TYPE',
      rules: (flag.rules ?? []).map((r) => ({ segments: segmentsByKey(r.segments), operator: r.segmentOperator, distributions: r.distributions })),
      rollouts: (flag.rollouts ?? []).map((r) => {
        if (r.threshold) return { kind: 'threshold' as const, percentage: f32(r.threshold.percentage), value: r.threshold.value };
        if (r.segment) {
          return {
            kind: 'segment' as const, value: r.segment.value,
            operator: r.segment.segmentOperator ?? 'OR_SEGMENT_OPERATOR', segments: segmentsByKey(r.segment.segments),
          };
        }
        return { kind: 'none' as const };
      }),
    });
  }

  const lookup = (request: EvaluationRequest, type: FlagType): CompiledFlag => {
    checkRequest(request);
    const found = flags.get(request.flagKey);
    if (!found) throw new FlagEvaluationError(`invalid request: failed to get flag information ${namespace}/${request.flagKey}`);
    if (found.type !== type) {
      throw new FlagEvaluationError(`invalid request: ${request.flagKey} is not a ${type === 'BOOLEAN_FLAG_TYPE' ? 'boolean' : 'variant'} flag`);
    }
    return found;
  };

  return {
    namespace,
    flagKeys: [...flags.keys()],

    evaluateBoolean(request) {
      const { flag, rollouts } = lookup(request, 'BOOLEAN_FLAG_TYPE');
      const context = request.context ?? {};
      for (const rollout of rollouts) {
        if (rollout.kind === 'threshold') {
          if (crc32(request.entityId + request.flagKey) % 100 < rollout.percentage) {
            return { enabled: rollout.value, flagKey: flag.key, reason: 'MATCH_EVALUATION_REASON', segmentKeys: [] };
          }
        } else if (rollout.kind === 'segment') {
          const matched = matchSegments(rollout.segments, rollout.operator, request.entityId, context);
          if (matched) return { enabled: rollout.value, flagKey: flag.key, reason: 'MATCH_EVALUATION_REASON', segmentKeys: matched };
        }
      }
      return { enabled: flag.enabled, flagKey: flag.key, reason: 'DEFAULT_EVALUATION_REASON', segmentKeys: [] };
    },

    evaluateVariant(request) {
      const { flag, rules } = lookup(request, 'VARIANT_FLAG_TYPE');
      const context = request.context ?? {};
      const response: VariantEvaluation = {
        match: false, segmentKeys: [], reason: 'UNKNOWN_EVALUATION_REASON', flagKey: flag.key, variantKey: '', variantAttachment: '',
      };
      if (flag.defaultVariant) {
        response.reason = 'DEFAULT_EVALUATION_REASON';
        response.variantKey = flag.defaultVariant.key;
        response.variantAttachment = flag.defaultVariant.attachment ?? '';
      }
      if (!flag.enabled) return { ...response, reason: 'FLAG_DISABLED_EVALUATION_REASON' };

      for (const rule of rules) {
        const matched = matchSegments(rule.segments, rule.operator, request.entityId, context);
        if (!matched) continue;
        response.segmentKeys = matched;

        const valid = rule.distributions.filter((d) => f32(d.rollout) > 0);
        if (valid.length === 0) return { ...response, match: true, reason: 'MATCH_EVALUATION_REASON' };

        // cumulative buckets, scaled so that the rule's rollouts fill all 1000 buckets
        let total = 0;
        for (const d of valid) total = f32(total + f32(d.rollout));
        let cumulative = 0;
        const buckets = valid.map((d) => {
          cumulative = f32(cumulative + f32(d.rollout));
          return roundHalfAway(f32(f32(cumulative / total) * 1000));
        }).sort((a, b) => a - b);

        const bucket = crc32(request.flagKey + request.entityId) % 1000;
        const index = rustBinarySearch(buckets, bucket + 1);
        if (index >= valid.length) return { ...response, match: false };
        const d = valid[index]!;
        return {
          ...response, match: true, reason: 'MATCH_EVALUATION_REASON', variantKey: d.variantKey, variantAttachment: d.variantAttachment ?? '',
        };
      }
      return response;
    },
  };
}
