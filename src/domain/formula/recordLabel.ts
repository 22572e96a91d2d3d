/**
 * What a person recognises a record by, in place of its ids: its title from the formula's summary
 * fields ("Grace Hopper · grace@navy.example"), where it came from in words ("spring-1.csv, line 2",
 * or the source system's own id), and a destination record's own id (Lookup ID SC-000619).
 */

/** Parts of a person's name: read together with spaces, as a name is written. */
const NAME_PART = /^(salutation|title|first_?name|given_?name|middle_?name|last_?name|family_?name|surname|suffix)$/i;
/** Used when the formula chose no summary fields (or they are all blank): the fields that usually name a record. */
const FALLBACK_FIELDS = ['firstName', 'lastName', 'FirstName', 'LastName', 'name', 'Name', 'email', 'Email'];
/** A title longer than this is cut: it is a row's first cell and a heading. */
export const RECORD_TITLE_MAX = 120;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** the key of a row's gift is its row's with this after it (companion.ts COMPANION_KEY_SUFFIX; this file imports nothing) */
const GIFT_SUFFIX = '#gift';
/** `<upload id or file name>#<line>`: the keys of file sources (server/connectors/fileSources). */
const FILE_LINE = /^(.+)#(\d+)$/;

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

function titleOf(fields: readonly string[], values: Record<string, unknown>): string {
  const parts: string[] = [];
  let name = false;
  for (const field of fields) {
    const value = text(values[field]).replace(/\s+/g, ' ');
    if (!value) continue;
    const isName = NAME_PART.test(field);
    // first and last name are one part of the title, not two
    if (isName && name) parts[parts.length - 1] += ` ${value}`;
    else parts.push(value);
    name = isName;
  }
  return parts.join(' · ');
}

/**
 * A record's title: the values of the formula's summary fields in their order, from the record's
 * transformed values (or its source values where it has none); null when they are all blank.
 */
export function recordTitle(summaryFields: readonly string[], values: Record<string, unknown> | null | undefined): string | null {
  if (!values) return null;
  const title = titleOf(summaryFields, values) || titleOf(FALLBACK_FIELDS.filter((f) => Object.hasOwn(values, f)), values);
  if (!title) return null;
  return title.length > RECORD_TITLE_MAX ? `${title.slice(0, RECORD_TITLE_MAX - 1).trimEnd()}…` : title;
}

/** What is known of a record's source beyond its key. */
export interface SourceFacts {
  /** the uploaded file's name, for a key of a file upload (`<upload id>#<line>`) */
  fileName?: string | null | undefined;
  /** the source system's name (Salesforce), for a key that is the system's own id */
  system?: string | null | undefined;
}

/**
 * Where a record came from, in words: the file and line of a file source ("spring-1.csv, line 2"),
 * or the source system's own id ("Salesforce ID 0035g00000AbCdE").
 */
export function sourcePosition(sourceKey: string, facts: SourceFacts = {}): string {
  // a row's gift (src/domain/formula/companion.ts) comes from where its row does
  if (sourceKey.endsWith(GIFT_SUFFIX)) return `${sourcePosition(sourceKey.slice(0, -GIFT_SUFFIX.length), facts)}, its gift`;
  const at = FILE_LINE.exec(sourceKey);
  if (at) {
    const [, file, line] = at as unknown as [string, string, string];
    if (UUID.test(file)) return facts.fileName ? `${facts.fileName}, line ${Number(line)}` : `Uploaded file, line ${Number(line)}`;
    // a folder source's key names the file by its path in the folder: its name is what a person knows
    return `${file.split(/[\\/]/).pop() || file}, line ${Number(line)}`;
  }
  return `${facts.system ? `${facts.system} ID` : 'Source ID'} ${sourceKey}`;
}

/** The upload a file-upload key names, or null for any other key. */
export function uploadOfKey(sourceKey: string): string | null {
  const at = FILE_LINE.exec(sourceKey.endsWith(GIFT_SUFFIX) ? sourceKey.slice(0, -GIFT_SUFFIX.length) : sourceKey);
  return at && UUID.test(at[1]!) ? at[1]!.toLowerCase() : null;
}

/** A record named in a sentence: its title with where it came from, or where it came from alone. */
export function recordLabel(title: string | null, position: string): string {
  return title ? `${title} (${position})` : position;
}

/**
 * A destination record's own id, as the destination shows it to people: the lookup id of the
 * Sandbox CRM and Raiser's Edge NXT (`lookupId` in their fields), or a Salesforce record's Id.
 */
export function destinationOwnId(system: string | null | undefined, id: string, fields: Record<string, unknown>): { label: string; value: string } | null {
  const lookup = text(fields.lookupId) || text(fields.lookup_id);
  if (lookup) return { label: 'Lookup ID', value: lookup };
  if (system === 'salesforce' && id) return { label: 'Salesforce Id', value: id };
  return null;
}

/**
 * A destination record as a person tells it apart: its name and the destination's own id for it
 * (two candidates of one name differ by it); its id in the destination's API only where it has neither.
 */
export function destinationName(x: { id: string; title: string | null; ownId: { label: string; value: string } | null }): string {
  return [x.title, x.ownId && `${x.ownId.label} ${x.ownId.value}`].filter(Boolean).join(' · ') || x.id;
}

/** A copy's reason naming its first record by label instead of by source key. */
export function namedCopyReason(reason: string, firstKey: string, label: string): string {
  return reason.split(firstKey).join(label);
}
