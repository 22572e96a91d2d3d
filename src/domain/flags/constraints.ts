/** Feature flags: constraint matching as Flipt's engine does it (src/domain/flags/evaluator.ts). */
import { parseI32, parseI32List, parseStringList, rfc3339Seconds } from './engineNumbers.ts';
import { type SegmentOperator, type SnapshotConstraint, type SnapshotSegment } from './snapshot.ts';

// ---------------------------------------------------------------------------------------------
// Constraint matching.

function matchesString(c: SnapshotConstraint, value: string): boolean {
  if (c.operator === 'empty') return value === '';
  if (c.operator === 'notempty') return value !== '';
  if (value === '') return false;
  switch (c.operator) {
    case 'eq': return value === c.value;
    case 'neq': return value !== c.value;
    case 'prefix': return value.startsWith(c.value);
    case 'suffix': return value.endsWith(c.value);
    case 'contains': return value.includes(c.value);
    case 'notcontains': return !value.includes(c.value);
    case 'isoneof': return parseStringList(c.value)?.includes(value) ?? false;
    case 'isnotoneof': return !(parseStringList(c.value)?.includes(value) ?? false);
    default: return false;
  }
}

function matchesNumber(c: SnapshotConstraint, value: string): boolean {
  if (c.operator === 'notpresent') return value === '';
  if (c.operator === 'present') return value !== '';
  if (value === '') return false;
  const n = parseI32(value);
  if (n === null) return false;
  if (c.operator === 'isoneof' || c.operator === 'isnotoneof') {
    const list = parseI32List(c.value);
    if (list === null) return false; // an unreadable list fails both operators
    return list.includes(n) === (c.operator === 'isoneof');
  }
  const want = parseI32(c.value);
  if (want === null) return false;
  switch (c.operator) {
    case 'eq': return n === want;
    case 'neq': return n !== want;
    case 'lt': return n < want;
    case 'lte': return n <= want;
    case 'gt': return n > want;
    case 'gte': return n >= want;
    default: return false;
  }
}

function matchesBoolean(c: SnapshotConstraint, value: string): boolean {
  if (c.operator === 'notpresent') return value === '';
  if (c.operator === 'present') return value !== '';
  if (value !== 'true' && value !== 'false') return false;
  const b = value === 'true';
  if (c.operator === 'true') return b;
  if (c.operator === 'false') return !b;
  return false;
}

function matchesDateTime(c: SnapshotConstraint, value: string): boolean {
  if (c.operator === 'notpresent') return value === '';
  if (c.operator === 'present') return value !== '';
  if (value === '') return false;
  const at = rfc3339Seconds(value);
  const want = rfc3339Seconds(c.value);
  if (at === null || want === null) return false;
  switch (c.operator) {
    case 'eq': return at === want;
    case 'neq': return at !== want;
    case 'lt': return at < want;
    case 'lte': return at <= want;
    case 'gt': return at > want;
    case 'gte': return at >= want;
    default: return false;
  }
}

function matchesSegment(segment: SnapshotSegment, entityId: string, context: Record<string, string>): boolean {
  const any = segment.matchType === 'ANY_SEGMENT_MATCH_TYPE';
  let matches = 0;
  for (const c of segment.constraints) {
    const value = Object.hasOwn(context, c.property) ? context[c.property]! : '';
    let matched: boolean;
    switch (c.type) {
      case 'STRING_CONSTRAINT_COMPARISON_TYPE': matched = matchesString(c, value); break;
      case 'NUMBER_CONSTRAINT_COMPARISON_TYPE': matched = matchesNumber(c, value); break;
      case 'BOOLEAN_CONSTRAINT_COMPARISON_TYPE': matched = matchesBoolean(c, value); break;
      case 'DATETIME_CONSTRAINT_COMPARISON_TYPE': matched = matchesDateTime(c, value); break;
      case 'ENTITY_ID_CONSTRAINT_COMPARISON_TYPE': matched = matchesString(c, entityId); break;
      default: return false; // an unknown type: the whole segment does not match
    }
    if (matched) {
      matches++;
      if (any) break;
    } else if (!any) {
      break;
    }
  }
  return any ? segment.constraints.length === 0 || matches > 0 : matches === segment.constraints.length;
}

/** Segments keyed as the engine keys them: a repeated key replaces the earlier segment. */
export function segmentsByKey(segments: readonly SnapshotSegment[] | null | undefined): Map<string, SnapshotSegment> {
  const map = new Map<string, SnapshotSegment>();
  for (const s of segments ?? []) map.set(s.key, s);
  return map;
}

/** The keys of the matching segments, or null when the segments do not satisfy the operator. */
export function matchSegments(
  segments: Map<string, SnapshotSegment>, operator: SegmentOperator, entityId: string, context: Record<string, string>,
): string[] | null {
  const matched: string[] = [];
  for (const [key, segment] of segments) if (matchesSegment(segment, entityId, context)) matched.push(key);
  if (operator === 'OR_SEGMENT_OPERATOR') return matched.length > 0 ? matched : null;
  return matched.length === segments.size ? matched : null;
}
