/**
 * The SQL of a record scope (src/domain/records/query.ts): which of a formula's records a bucket
 * view holds, and its filter. One function, so the records list API, the export service and bulk
 * actions select exactly the same records. It filters neither tenant nor formula: the repository
 * that uses it adds both.
 *
 * The conditions are written the way the bucket indexes of schema/formulas.ts are built, so the
 * indexes serve them: bucket views compare `coalesce(custom_bucket, '')` (the expression the
 * bucket indexes hold), and the text filter is a `like` on RECORD_SEARCH_TEXT_SQL, the expression
 * of the trigram index of migration 0009 ("contains, any case" over the raw and transformed
 * values: any part of any value, which a prefix match on keys would not find).
 */
import { and, sql, type SQL } from 'drizzle-orm';
import { RECORD_VIEWS, type RecordFilter, type RecordScope, type RecordSelection, type RecordViewDef } from '../../../src/domain/records/query.ts';
import { records, RECORD_SEARCH_TEXT_SQL } from '../schema/formulas.ts';

const UUID = /^[\da-f]{8}(?:-[\da-f]{4}){3}-[\da-f]{12}$/i;

const sqlList = (values: readonly string[]) => sql.join(values.map((v) => sql`${v}`), sql`, `);
const textArray = (values: readonly string[]) => sql`${sql.param(values)}::text[]`;

/** A `like` pattern matching `text` anywhere (lower case, as the search text is), its own % _ and \ taken literally. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Which records a view holds (and its custom bucket). */
function viewConditions(def: RecordViewDef, customBucket: string | undefined): SQL[] {
  const out: SQL[] = [];
  if (def.buckets) {
    out.push(def.buckets.length === 1 ? sql`${records.bucket} = ${def.buckets[0]}` : sql`${records.bucket} in (${sqlList(def.buckets)})`);
    // the same expression as the bucket indexes: an equality on it keeps their order usable
    out.push(sql`coalesce(${records.customBucket}, '') = ${customBucket ?? ''}`);
  }
  if (def.states) out.push(def.states.length === 1 ? sql`${records.state} = ${def.states[0]}` : sql`${records.state} in (${sqlList(def.states)})`);
  return out;
}

/** A bucket screen's filter: text in any raw or transformed value, a group of ids or source keys, dates added. */
function filterConditions(filter: RecordFilter | undefined): SQL[] {
  const out: SQL[] = [];
  if (!filter) return out;
  const text = filter.text?.trim();
  if (text) out.push(sql`${RECORD_SEARCH_TEXT_SQL} like ${containsPattern(text)}`);
  if (filter.group?.length) {
    const ids = filter.group.filter((g) => UUID.test(g));
    out.push(ids.length
      ? sql`(${records.id} = any(${sql.param(ids)}::uuid[]) or ${records.sourceKey} = any(${textArray(filter.group)}))`
      : sql`${records.sourceKey} = any(${textArray(filter.group)})`);
  }
  if (filter.addedFrom) out.push(sql`${records.dateAdded} >= ${filter.addedFrom}::timestamptz`);
  if (filter.addedTo) out.push(sql`${records.dateAdded} < ${filter.addedTo}::timestamptz`);
  return out;
}

/** The records of a scope's view, custom bucket and filter, as one condition on `records`. */
export function scopeCondition(scope: RecordScope): SQL {
  return and(...viewConditions(RECORD_VIEWS[scope.view], scope.customBucket), ...filterConditions(scope.filter)) ?? sql`true`;
}

/** The records of a selection: the chosen ids, or everything its scope holds. */
export function selectionCondition(selection: RecordSelection): SQL {
  return selection.kind === 'ids' ? sql`${records.id} = any(${sql.param(selection.ids)}::uuid[])` : scopeCondition(selection.scope);
}
